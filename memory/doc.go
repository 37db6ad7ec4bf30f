// Package memory holds the operations of the memory model
// (memory-model.md) over the domain's interfaces: listing memories by type
// and entity in the order cards and the foundation set use (pinned, then
// importance, then recency), pinning and setting importance as new
// versions of a memory, and the rules that read a memory's metadata.
// Memories themselves are objects with tenure.Memory set; the store keys
// them by their memory key, so that a memory is updated, never
// duplicated.
package memory
