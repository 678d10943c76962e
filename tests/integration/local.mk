# tests/integration tests
