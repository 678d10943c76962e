# console: owned by the console layer
