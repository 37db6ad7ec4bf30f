package entity

import (
	"strings"
	"unicode"

	"github.com/tenure-dev/tenure"
)

// MaxMentionLen bounds a mention's text, in bytes.
const MaxMentionLen = 200

// Mention is a name as it occurs: in an object's canonical_entity_ids,
// an extracted fact's subject, a message's speaker.
type Mention struct {
	Type Type `json:"type"`
	// Name is the surface form ("Dr. Lena Ortiz").
	Name string `json:"name"`
	// Key is "<type>:<slug>".
	Key string `json:"key"`
}

// Slug normalizes a name by memory-model.md's rules: lowercase,
// punctuation removed, runs of spaces, hyphens, underscores, slashes and
// colons become one underscore ("Acme Corp." → "acme_corp"). Letters of
// every script and digits are kept.
func Slug(s string) string {
	var b strings.Builder
	sep := false
	for _, r := range strings.ToLower(s) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if sep && b.Len() > 0 {
				b.WriteByte('_')
			}
			sep = false
			b.WriteRune(r)
		case unicode.IsSpace(r) || r == '-' || r == '_' || r == '/' || r == ':' || r == ',' || r == '.':
			sep = true
		}
	}
	return b.String()
}

// Key returns "<type>:<slug of name>".
func Key(t Type, name string) string { return string(t) + ":" + Slug(name) }

// ParseMention reads "type:name" (a known type before the first colon)
// or an untyped name (type Other). It fails with CodeInvalid naming field
// when the name has no letter or digit or is longer than MaxMentionLen.
func ParseMention(field, s string) (Mention, error) {
	s = strings.TrimSpace(s)
	if len(s) > MaxMentionLen {
		return Mention{}, tenure.Errorf(tenure.CodeInvalid, field, "longer than %d bytes", MaxMentionLen)
	}
	t, name := Other, s
	if i := strings.IndexByte(s, ':'); i > 0 {
		if tt := Type(strings.ToLower(strings.TrimSpace(s[:i]))); tt.Valid() {
			t, name = tt, strings.TrimSpace(s[i+1:])
		}
	}
	return NewMention(field, t, name)
}

// NewMention returns the mention of name as type t (CodeInvalid naming
// field: an unknown type, or a name without a letter or digit).
func NewMention(field string, t Type, name string) (Mention, error) {
	if !t.Valid() {
		return Mention{}, tenure.Errorf(tenure.CodeInvalid, field, "unknown entity type %q (allowed: person, org, place, project, product, other)", t)
	}
	if len(name) > MaxMentionLen {
		return Mention{}, tenure.Errorf(tenure.CodeInvalid, field, "longer than %d bytes", MaxMentionLen)
	}
	slug := Slug(name)
	if slug == "" {
		return Mention{}, tenure.Errorf(tenure.CodeInvalid, field, "%q names no entity (no letter or digit)", name)
	}
	return Mention{Type: t, Name: strings.Join(strings.Fields(name), " "), Key: string(t) + ":" + slug}, nil
}

// KeyType returns the type part of an alias key (Other when it has none).
func KeyType(key string) Type {
	if i := strings.IndexByte(key, ':'); i > 0 {
		if t := Type(key[:i]); t.Valid() {
			return t
		}
	}
	return Other
}

// KeySlug returns the slug part of an alias key.
func KeySlug(key string) string {
	if i := strings.IndexByte(key, ':'); i > 0 && Type(key[:i]).Valid() {
		return key[i+1:]
	}
	return key
}

// Label renders a slug as a display name when no surface form is known
// ("john_doe" → "John Doe").
func Label(slug string) string {
	words := strings.Split(slug, "_")
	for i, w := range words {
		r := []rune(w)
		if len(r) > 0 {
			r[0] = unicode.ToUpper(r[0])
		}
		words[i] = string(r)
	}
	return strings.Join(words, " ")
}

// ObjectMention returns the mention key an object's attribute is about:
// the key of its first canonical entity id (false: the object has no
// attribute, no entity id, or a first id that names no entity).
func ObjectMention(o *tenure.Object) (string, bool) {
	if o.Attribute == "" || len(o.CanonicalEntityIDs) == 0 {
		return "", false
	}
	m, err := ParseMention("canonical_entity_ids", o.CanonicalEntityIDs[0])
	if err != nil {
		return "", false
	}
	return m.Key, true
}
