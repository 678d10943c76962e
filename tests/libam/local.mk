# tests/libam tests
