"""Generators of the files that follow from the protocol's pydantic models.

scripts/gen_protocol.py runs them: docs.py fills the generated blocks of docs/protocol.md,
page.py writes the page's message types and constants; schema.py is the one JSON-Schema
walker both use. None of this ships in the wheel.
"""
