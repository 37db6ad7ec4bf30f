package compile

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// SectionKind names a section of the envelope. Sections are emitted in the
// order of SectionOrder.
type SectionKind string

// Sections.
const (
	SectionSystem    SectionKind = "system"    // system and developer rules
	SectionPolicy    SectionKind = "policy"    // tenant and project policy, platform rules
	SectionTools     SectionKind = "tools"     // tool schemas
	SectionMemory    SectionKind = "memory"    // selected memory
	SectionHistory   SectionKind = "history"   // selected past conversation turns
	SectionDocuments SectionKind = "documents" // retrieved payloads (untrusted)
	SectionState     SectionKind = "state"     // active task state
	SectionWorkflow  SectionKind = "workflow"  // a workflow's shared snapshot (with Request.WorkflowID)
	SectionTail      SectionKind = "tail"      // recent conversation
	SectionLate      SectionKind = "late"      // instructions added mid-session
	SectionTurn      SectionKind = "turn"      // the current user turn
)

// SectionOrder is the order for cache and attention: stable, high-authority
// blocks first, dynamic turn data last.
var SectionOrder = []SectionKind{SectionSystem, SectionPolicy, SectionTools, SectionMemory, SectionHistory,
	SectionDocuments, SectionState, SectionWorkflow, SectionTail, SectionLate, SectionTurn}

// staticSections form the cacheable prefix: they depend only on stable
// inputs (instructions, policy, tools, principal, scope, task type, budget
// and mode), never on the query or the conversation.
var staticSections = map[SectionKind]bool{SectionSystem: true, SectionPolicy: true, SectionTools: true}

// Section is one block of the envelope.
type Section struct {
	Kind SectionKind `json:"kind"`
	// Role is the chat role the section is sent as: system, user or
	// assistant. Untrusted data is never sent as system.
	Role string `json:"role"`
	Text string `json:"text"`
	// Messages holds the section's conversation turns (tail only).
	Messages []Message `json:"messages,omitempty"`
	Tokens   int       `json:"tokens"`
	// Static marks the cacheable prefix.
	Static bool `json:"static"`
	// CacheBreakpoint marks the end of a static zone.
	CacheBreakpoint bool `json:"cache_breakpoint,omitempty"`
	Truncated       bool `json:"truncated,omitempty"`
	Items           int  `json:"items"`
}

// Envelope is the compiled, model-facing context.
type Envelope struct {
	Sections  []Section `json:"sections"`
	Tokens    int       `json:"tokens"`
	Budget    int       `json:"budget"`
	Tokenizer string    `json:"tokenizer"`
	// StaticPrefixTokens counts the cacheable prefix; CacheKey hashes it.
	StaticPrefixTokens  int    `json:"static_prefix_tokens"`
	DynamicSuffixTokens int    `json:"dynamic_suffix_tokens"`
	CacheKey            string `json:"cache_key"`
}

// sectionSep separates sections in the text rendering.
const sectionSep = "\n\n"

// Text renders the envelope as plain text: the sections in order, separated
// by blank lines. Its token count is Tokens.
func (e Envelope) Text() string {
	parts := make([]string, 0, len(e.Sections))
	for _, s := range e.Sections {
		parts = append(parts, s.Text)
	}
	return strings.Join(parts, sectionSep)
}

// StaticPrefix returns the text of the cacheable prefix.
func (e Envelope) StaticPrefix() string {
	var parts []string
	for _, s := range e.Sections {
		if s.Static {
			parts = append(parts, s.Text)
		}
	}
	return strings.Join(parts, sectionSep)
}

// Section returns the section of the given kind, if present.
func (e Envelope) Section(k SectionKind) (Section, bool) {
	for _, s := range e.Sections {
		if s.Kind == k {
			return s, true
		}
	}
	return Section{}, false
}

func cacheKey(prefix string) string {
	sum := sha256.Sum256([]byte(prefix))
	return hex.EncodeToString(sum[:])
}
