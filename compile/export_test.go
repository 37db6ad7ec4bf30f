package compile

// Hooks for the external tests.
var (
	// SplitUnits exposes the document splitter.
	SplitUnits = splitUnits
	// The untrusted-text renderer.
	InlineText      = inlineText
	BlockText       = blockText
	FencedText      = fencedText
	SpeakerLabel    = speakerLabel
	StructuralStart = func(s string) bool { return structuralStart(fold(s)) }
	// RecallsAssistant tells a query about what the assistant said.
	RecallsAssistant = recallsAssistant.MatchString
)
