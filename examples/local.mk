# examples: benchmarks and example programs
