// Package summarize writes the narrative channel of conversation memory: a
// rolling summary, refreshed every few user turns and bounded in length,
// and a structured SessionSummary (one_liner, what_mattered, open_loops,
// commitments, people, tone) when a session closes after inactivity.
//
// Two Summarizers share one interface. Extractive needs no model: it picks
// salient sentences by content-word centrality, favouring names, numbers,
// dates, decisions and commitments, and it is deterministic and fast
// enough for the write path. LLM prompts an llm.Completer with embedded,
// versioned templates (prompt/rolling_v1.tmpl, prompt/session_v1.tmpl) at
// temperature 0 under a hard timeout. Fallback chains them: the model when
// one is configured and answers usably, the extractive summarizer
// otherwise, and it reports which one answered.
//
// The package is pure logic: it neither stores nor schedules. The engine
// asks DueRolling and SessionClosed when to summarize and stores each
// result as a new version of an object, so earlier rolling summaries are
// kept rather than overwritten. A summarizer failing never stands in the
// way of the structured channel (package extract) or of the write itself:
// the caller records the error and moves on.
package summarize
