package compile

// Hooks for the external tests of the untrusted-text renderer.
var (
	InlineText      = inlineText
	BlockText       = blockText
	FencedText      = fencedText
	SpeakerLabel    = speakerLabel
	StructuralStart = func(s string) bool { return structuralStart(fold(s)) }
)
