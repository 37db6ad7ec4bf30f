// Package entity resolves entity mentions to canonical entities
// (docs/entities.md, after the entity resolution section of
// context-architecture.md).
//
// A Mention is a typed name: "person:Makesh", "org:Acme Corp." or an
// untyped "Acme". Its Key is the normalized slug form "<type>:<slug>" of
// memory-model.md (lowercase, punctuation removed, spaces and hyphens
// become underscores). Resolve generates the candidates a mention may
// denote among a registry's entities (exact alias, the same name once
// honorifics, legal suffixes, articles, diacritics and word order are set
// aside, a fuzzy name match for variants such as "Makesh" and "Mukesh",
// all only between compatible types) and scores them. A score of at least
// AutoLinkScore binds the mention to the entity, a score of at least ReviewScore
// makes it a pending node for a person or tool to settle, anything lower
// is a new entity. An ambiguous mention, one that two entities answer to
// nearly as well, never binds.
//
// Fuzzy matches are capped below AutoLinkScore by design: a spelling variant
// is a candidate for review, never an automatic merge, because a false
// merge contaminates every fact of both entities while a missed one only
// waits for review.
//
// Merge, Split and Undo are the registry's operations as pure functions
// over entity versions: they return the new versions and the Op that
// records them. Storage, principals and permissions are the engine's
// (engine/), the surfaces the adapters'.
package entity
