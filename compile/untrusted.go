package compile

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/mtibben/confusables"
	"golang.org/x/text/unicode/norm"
)

// This file is the one place where text that anyone but the operator wrote
// — memory values, conversation turns, state items, summaries, speaker
// names, documents and tool output — is made safe to place in an envelope.
// The envelope's own structure is line-based: section headings, rule lines
// ("- MUST:", "- Guidance:"), "Speaker: text" turns, omission markers and
// <untrusted_data> fences. Untrusted text must never produce any of them:
//
//   - invisible characters (zero-width, bidi controls, tag characters,
//     variation selectors) are dropped, and every line-break variant
//     (\r, \v, \f, U+0085, U+2028, U+2029) becomes "\n", so that what the
//     model sees is what the checks below saw;
//   - inline text is put on one line: nothing it contains can start one;
//   - block text keeps its lines, and a line that would read as structure
//     (compared after folding Unicode look-alikes to ASCII) is escaped
//     with a leading backslash;
//   - anything that reads as a fence tag has its "<" escaped, and fenced
//     content is XML-escaped, so no text can open or close a data block.

// inlineText renders untrusted text on one line (whitespace collapsed).
func inlineText(s string) string {
	s = cleanText(s)
	if strings.ContainsAny(s, "\n\t") || strings.Contains(s, "  ") || strings.TrimSpace(s) != s {
		s = strings.Join(strings.Fields(s), " ")
	}
	return escapeFenceTags(s)
}

// blockText renders untrusted multi-line text (a conversation turn): lines
// are kept, and every line that would read as envelope structure is
// escaped.
func blockText(s string) string {
	s = escapeFenceTags(cleanText(s))
	if !strings.Contains(s, "\n") {
		return escapeLine(s)
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = escapeLine(l)
	}
	return strings.Join(lines, "\n")
}

// fencedText renders the content of a data fence: XML-escaped, with
// look-alikes of the fence's tags escaped too.
func fencedText(s string) string { return escapeTagLookalikes(escapeXML(cleanText(s)), false) }

// speakerLabel renders a speaker's name where it starts a line: a name
// that reads as a role, a rule or structure is quoted, so that a speaker
// called "System" or "MUST" cannot forge a role marker or a rule.
func speakerLabel(s string) string {
	s = inlineText(s)
	f := fold(s)
	if f == "" || reservedLabels[strings.TrimRight(f, " :")] || structuralStart(f) || !utf8.ValidString(s) {
		return `"` + strings.ReplaceAll(s, `"`, `'`) + `"`
	}
	return s
}

// keyText renders a key where it follows a line's bullet ("- key: …"): a
// key that would make the line read as a rule or a role is quoted.
func keyText(s string) string {
	s = inlineText(s)
	if f := fold(s); reservedLabels[strings.TrimRight(f, " :")] || structuralStart(f) || structuralStart("- "+f) {
		return `"` + strings.ReplaceAll(s, `"`, `'`) + `"`
	}
	return s
}

// reservedLabels are words that, followed by a colon at the start of a
// line, read as a role marker or a rule.
var reservedLabels = map[string]bool{"system": true, "assistant": true, "user": true, "developer": true, "tool": true,
	"human": true, "ai": true, "model": true, "function": true, "must": true, "guidance": true, "instruction": true,
	"instructions": true, "rules": true, "rule": true, "note": true}

// escapeLine escapes a line that would read as structure.
func escapeLine(l string) string {
	if l == "" || !structuralStart(fold(l)) {
		return l
	}
	return `\` + l
}

// structuralStart reports whether a folded line reads, at its start, as
// part of the envelope's structure: a heading or a setext underline, a
// rule or guidance line, a role marker or chat-template token, a fence
// tag, or a bracketed compiler line (omission markers, state items, date
// headers).
func structuralStart(f string) bool {
	f = strings.TrimLeft(f, " \t")
	if f == "" {
		return false
	}
	switch f[0] {
	case '#', '<', '[':
		return true
	case '>':
		return structuralStart(f[1:]) // a quoted heading, rule or role
	case '{':
		return strings.Contains(f, `"role"`) // a chat message spelled as JSON
	}
	if strings.Trim(f, "=- ") == "" && len(strings.TrimSpace(f)) >= 2 {
		return true // setext underline or a rule
	}
	rest := trimBullet(f)
	word := leadingWord(rest)
	after := strings.TrimLeft(rest[len(word):], " \t")
	switch {
	case word == "must" || word == "guidance":
		return rest != f || after == "" || after[0] == ':' || strings.HasPrefix(after, "not")
	case reservedLabels[word]:
		return after != "" && (after[0] == ':' || after[0] == ']' || after[0] == '>' || after[0] == '|')
	}
	return false
}

// trimBullet drops a leading list marker ("-", "*", "+", "•", "1.", "2)").
func trimBullet(f string) string {
	i := 0
	for i < len(f) && f[i] >= '0' && f[i] <= '9' {
		i++
	}
	switch {
	case i > 0 && i < len(f) && (f[i] == '.' || f[i] == ')'):
		return strings.TrimLeft(f[i+1:], " \t")
	case strings.HasPrefix(f, "-") || strings.HasPrefix(f, "*") || strings.HasPrefix(f, "+"):
		return strings.TrimLeft(f[1:], " \t")
	case strings.HasPrefix(f, "•") || strings.HasPrefix(f, "·"):
		_, n := utf8.DecodeRuneInString(f)
		return strings.TrimLeft(f[n:], " \t")
	}
	return f
}

// leadingWord returns the run of ASCII letters at the start of f.
func leadingWord(f string) string {
	i := 0
	for i < len(f) && (f[i] >= 'a' && f[i] <= 'z') {
		i++
	}
	return f[:i]
}

// escapeFenceTags escapes every "<" (or look-alike) of a text that names
// the fence's tag, so that it can neither open nor close a data block.
func escapeFenceTags(s string) string { return escapeTagLookalikes(s, true) }

// escapeTagLookalikes escapes, in a text that names the fence's tag, the
// characters that read as "<": the ASCII one too unless the text is
// XML-escaped already.
func escapeTagLookalikes(s string, ascii bool) string {
	if !strings.Contains(strings.ReplaceAll(fold(s), " ", ""), "untrusted") {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if (ascii && r == '<') || (r >= utf8.RuneSelf && foldRune(r) == "<") {
			b.WriteString("&lt;")
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// cleanText drops invisible and control characters and turns every
// line-break variant into "\n". Plain ASCII text is returned as is.
func cleanText(s string) string {
	plain := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf || (c < ' ' && c != '\n' && c != '\t') || c == 0x7f {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	b.Grow(len(s))
	for i, r := range s {
		switch {
		case r == '\r':
			if i+1 < len(s) && s[i+1] == '\n' {
				continue
			}
			b.WriteByte('\n')
		case r == '\v' || r == '\f' || r == 0x85 || r == '\u2028' || r == '\u2029':
			b.WriteByte('\n')
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case invisible(r):
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// invisible reports characters that render as nothing (or as a blank)
// and so can hide or split words: controls, format characters (zero-width
// spaces and joiners, bidi controls, the tag block), variation selectors
// and the Hangul fillers.
func invisible(r rune) bool {
	return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Variation_Selector, r) ||
		r == '\u115F' || r == '\u1160' || r == '\u3164' || r == '\uFFA0' || r == '\u180E'
}

// fold maps a text to what it looks like in lower-case ASCII, rune by rune
// (see foldRune), so that look-alikes of structure compare equal to it.
func fold(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToLower(s)
	}
	var b strings.Builder
	for _, r := range s {
		b.WriteString(foldRune(r))
	}
	return b.String()
}

// foldCache memoizes foldRune: a conversation uses few distinct
// characters, and the look-alike tables are slow to consult.
var foldCache sync.Map // rune → string

// foldRune returns the lower-case ASCII a character looks like: its
// compatibility decomposition (fullwidth and mathematical letters), else
// its Unicode confusable skeleton (Cyrillic, Greek, Cherokee … look-alikes),
// else small capitals; a character that looks like no ASCII stays itself.
func foldRune(r rune) string {
	if r < utf8.RuneSelf {
		return string(unicode.ToLower(r))
	}
	if v, ok := foldCache.Load(r); ok {
		return v.(string)
	}
	f := strings.ToLower(norm.NFKC.String(string(r)))
	if !isASCII(f) {
		f = strings.ToLower(confusables.Skeleton(string(r)))
	}
	if !isASCII(f) {
		if a, ok := smallCapitals[r]; ok {
			f = a
		} else {
			f = string(unicode.ToLower(r))
		}
	}
	foldCache.Store(r, f)
	return f
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// smallCapitals are the Latin small capitals, which neither compatibility
// decomposition nor the confusables table map to ASCII.
var smallCapitals = map[rune]string{'ᴀ': "a", 'ʙ': "b", 'ᴄ': "c", 'ᴅ': "d", 'ᴇ': "e", 'ꜰ': "f", 'ɢ': "g", 'ʜ': "h",
	'ɪ': "i", 'ᴊ': "j", 'ᴋ': "k", 'ʟ': "l", 'ᴍ': "m", 'ɴ': "n", 'ᴏ': "o", 'ᴘ': "p", 'ǫ': "q", 'ʀ': "r", 'ꜱ': "s",
	'ᴛ': "t", 'ᴜ': "u", 'ᴠ': "v", 'ᴡ': "w", 'ʏ': "y", 'ᴢ': "z"}
