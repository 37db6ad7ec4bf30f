// Package memtest measures the heap a piece of code uses, for the memory
// benchmarks and tests: a sampled peak, since the runtime keeps no
// high-water mark of its own.
package memtest
