"""The adversarial tests: a package, so that their server's "package" scope ends with them."""
