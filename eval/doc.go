// Package eval holds Tenure's benchmark harnesses. LoCoMo ("Evaluating Very
// Long-Term Conversational Memory of LLM Agents", Maharana et al., ACL
// 2024) measures how much of each question's evidence a compiled context
// contains within a token budget, against two baselines: the most recent
// turns that fit (what "full context, truncated" does) and plain BM25 over
// turns.
//
// The harness feeds the system under test only the dialogue: speakers,
// turn text, shared photos' captions and session dates. The dataset's
// observations, summaries, event graphs and evidence annotations are never
// given to it; evidence is used only to score.
package eval
