// Package slot reads what a structured-state item is about and what it
// says of it, so that reconciliation can tell a restatement from a changed
// value and from a new item on a neighbouring subject without a model.
//
// Analyze splits an item's text into its frame (the content words that say
// what it is about: "analytics store", "dashboard p95 load"), its names
// (proper names and product names: "ClickHouse", "Lena"), its facets (the
// explicit values: quantities with their units and bounds, dates, times of
// day, versions), its polarity (negated or not) and the values it says it
// replaces ("instead of PostgreSQL"). Compare relates two analyses: the
// same slot with the same value, the same slot with a changed value, the
// same slot with a value added (a refinement), or another slot. Two items
// are on one slot by their frames, or by their values: the same explicit
// values, a shared noun, and words of their own that differ only on one
// side or only in kind, or as paraphrases (align.go): the same nouns,
// names and values said with other predicates, words of one side paired
// with WordNet derivations ("sue", "lawsuit") and abbreviations of the
// other, and no minimal pair ("Write the report", "Review the report").
// Parse renders an item's subject and value as short strings.
//
// Words are compared by stem, through a curated lexicon (lexicon.go) and
// through WordNet (package wordnet): forms of one lemma, shared senses,
// phrasal verbs and derivations.
//
// Everything here is pure and deterministic: no I/O, no clock, no model.
package slot
