// Package eval holds Tenure's benchmark harnesses. LoCoMo ("Evaluating Very
// Long-Term Conversational Memory of LLM Agents", Maharana et al., ACL
// 2024) measures how much of each question's evidence a compiled context
// contains within a token budget, against two baselines: the most recent
// turns that fit (what "full context, truncated" does) and plain BM25 over
// turns. LongMemEval ("LongMemEval: Benchmarking Chat Assistants on
// Long-Term Interactive Memory", Wu et al., ICLR 2025) does the same for a
// user's chats with an assistant: each question has its own history of
// about fifty sessions, and BM25 over whole sessions is a third baseline.
//
// The harnesses feed the system under test only the dialogue: speakers or
// roles, turn text, shared photos' captions and session dates. LoCoMo's
// observations, summaries, event graphs and evidence annotations, and
// LongMemEval's answers, evidence sessions and has_answer marks, are never
// given to it; they are used only to score.
package eval
