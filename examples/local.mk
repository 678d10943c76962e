# examples: owned by the examples layer
