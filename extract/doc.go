// Package extract turns conversation messages into candidate structured
// state: typed state items (decisions, constraints, actions, questions,
// risks) and profile and people facts, each with references to the messages
// it came from. Two Extractors share one interface: Rules, deterministic
// patterns that need no model, and LLM, which prompts an llm.Completer with
// an embedded, versioned template. Candidates are not stored here; the
// engine reconciles them against existing state.
package extract
