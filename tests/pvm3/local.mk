# tests/pvm3 tests
