"""One walker over the protocol's JSON Schema, for both generated outputs.

`type_of` turns a JSON Schema fragment (the subset pydantic emits) into a small type tree,
`fields` lists a model's fields with their types, ranges and descriptions. docs.py prints
the tree as the Markdown tables of docs/protocol.md, page.py as TypeScript declarations.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import GenerateJsonSchema, models_json_schema
from pydantic_core import core_schema

from sixdof.server.protocol import CLIENT_MESSAGES, SERVER_MESSAGES, Hydrodynamics


@dataclass(frozen=True)
class Ref:
    name: str


@dataclass(frozen=True)
class Const:
    value: Any


@dataclass(frozen=True)
class Union:
    options: tuple[Type, ...]


@dataclass(frozen=True)
class Array:
    item: Type
    width: int | None  # a fixed width (minItems == maxItems), else None


@dataclass(frozen=True)
class Tuple:
    items: tuple[Type, ...]


@dataclass(frozen=True)
class Map:
    value: Type  # an object with any keys, each holding a value of this type


@dataclass(frozen=True)
class Scalar:
    kind: str  # number, integer, string, boolean, null, object, any


Type = Ref | Const | Union | Array | Tuple | Map | Scalar


def type_of(schema: dict[str, Any] | bool) -> Type:
    """The type a JSON Schema fragment describes."""
    if not isinstance(schema, dict) or not schema:
        return Scalar("any")
    if "$ref" in schema:
        return Ref(str(schema["$ref"]).rsplit("/", 1)[-1])
    if "const" in schema:
        return Const(schema["const"])
    if "enum" in schema:
        return Union(tuple(Const(v) for v in schema["enum"]))
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return Union(tuple(type_of(s) for s in schema[key]))
    kind = schema.get("type", "any")
    if kind == "array":
        if "prefixItems" in schema:
            return Tuple(tuple(type_of(s) for s in schema["prefixItems"]))
        width = schema.get("minItems")
        fixed = width if width and width == schema.get("maxItems") else None
        return Array(type_of(schema.get("items", {})), fixed)
    if kind == "object" and "additionalProperties" in schema:
        return Map(type_of(schema["additionalProperties"]))
    return Scalar(str(kind))


def bounds(schema: dict[str, Any]) -> str:
    """The allowed range of a field (`[lo, hi] unit`, or a length), or ''."""
    for s in (schema, schema.get("items", {}), *schema.get("anyOf", [])):
        s = s.get("items", s)
        if "minimum" in s or "maximum" in s:
            unit = f" {s['description']}" if s.get("description") else ""
            lo = f"{s['minimum']:g}" if "minimum" in s else "-∞"
            hi = f"{s['maximum']:g}" if "maximum" in s else "∞"
            return f"[{lo}, {hi}]{unit}"
        if s.get("maxLength"):
            return f"at most {s['maxLength']} characters"
    return ""


@dataclass(frozen=True)
class Field:
    name: str
    type: Type
    required: bool
    has_default: bool
    default: Any
    range: str
    description: str


def fields(schema: dict[str, Any]) -> list[Field]:
    """The fields of one object schema (a model's), in declaration order."""
    required = set(schema.get("required", []))
    return [
        Field(
            name=name,
            type=type_of(prop),
            required=name in required,
            has_default="default" in prop,
            default=prop.get("default"),
            range=bounds(prop),
            description=(prop.get("description") or "").replace("\n", " "),
        )
        for name, prop in schema.get("properties", {}).items()
    ]


def describe(model: type[BaseModel]) -> str:
    """A model's docstring as one sentence-case paragraph, without its direction prefix."""
    text = " ".join((model.__doc__ or "").split())
    text = text.removeprefix("server -> client: ").removeprefix("client -> server: ")
    return text[:1].upper() + text[1:]


class _AsSent(GenerateJsonSchema):
    """Serialization schemas list a field with a default as present, since pydantic writes
    it; only a field whose default is None may be left out (a state frame's `ghost`)."""

    def field_is_required(
        self,
        field: core_schema.ModelField | core_schema.DataclassField | core_schema.TypedDictField,
        total: bool,
    ) -> bool:
        inner = field["schema"]
        if self.mode == "serialization" and inner["type"] == "default":
            return "default_factory" in inner or inner.get("default") is not None
        return super().field_is_required(field, total)


def message_definitions() -> dict[str, dict[str, Any]]:
    """Every message and part as one object schema each: the server's messages as it sends
    them, the client's as it accepts them. A part both use in different shapes comes twice,
    as `Name` (sent) and `NameInput` (accepted)."""
    models = [(m, "serialization") for m in SERVER_MESSAGES.values()]
    models += [(m, "validation") for m in CLIENT_MESSAGES.values()]
    models += [(Hydrodynamics, "serialization")]  # a REST answer the page reads (server/hydro.py)
    _, schema = models_json_schema(models, schema_generator=_AsSent)  # type: ignore[arg-type]
    return {_name(key): _rename(value) for key, value in schema["$defs"].items()}


def _name(ref: str) -> str:
    return ref.removesuffix("-Output").replace("-Input", "Input")


def _rename(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {
            k: _name(v) if k == "$ref" and isinstance(v, str) else _rename(v)
            for k, v in schema.items()
        }
    if isinstance(schema, list):
        return [_rename(v) for v in schema]
    return schema
