# tests: owned by the tests layer
