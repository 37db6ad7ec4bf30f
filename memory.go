package tenure

import (
	"strconv"
	"strings"
	"time"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// MemoryKind is the memory model's type of a memory (memory-model.md):
// facts about the user, about people in the user's life, about what the
// user works on. It is not MemoryType, the tri-partite classification of
// state-layers.md, which every object has.
type MemoryKind string

// Memory kinds.
const (
	MemoryProfile MemoryKind = "profile"
	MemoryPeople  MemoryKind = "people"
	MemoryProject MemoryKind = "project"
)

// MemoryKinds lists the allowed memory kinds.
var MemoryKinds = []MemoryKind{MemoryProfile, MemoryPeople, MemoryProject}

// EntityType is the type of an entity a memory is about: the prefix of an
// entity ref.
type EntityType string

// Entity types.
const (
	EntityPerson  EntityType = "person"
	EntityOrg     EntityType = "org"
	EntityPlace   EntityType = "place"
	EntityProject EntityType = "project"
	EntityProduct EntityType = "product"
	EntityOther   EntityType = "other"
)

// EntityTypes lists the allowed entity types.
var EntityTypes = []EntityType{EntityPerson, EntityOrg, EntityPlace, EntityProject, EntityProduct, EntityOther}

// FactType classifies what a memory says about its entity.
type FactType string

// Fact types.
const (
	FactFact         FactType = "fact"
	FactPreference   FactType = "preference"
	FactRelationship FactType = "relationship"
	FactFriction     FactType = "friction"
	FactHabit        FactType = "habit"
)

// FactTypes lists the allowed fact types.
var FactTypes = []FactType{FactFact, FactPreference, FactRelationship, FactFriction, FactHabit}

// MemorySource says where a memory came from.
type MemorySource string

// Memory sources.
const (
	// MemoryFromExtraction: extracted from a conversation.
	MemoryFromExtraction MemorySource = "extraction"
	// MemorySeededProfile: loaded from an initial user profile.
	MemorySeededProfile MemorySource = "seeded_profile"
	// MemoryCuratedFold: written by the curator when it folded several
	// memories into one.
	MemoryCuratedFold MemorySource = "curated_fold"
	// MemoryFromUser: written by a user or a client directly.
	MemoryFromUser MemorySource = "user"
)

// MemorySources lists the allowed memory sources.
var MemorySources = []MemorySource{MemoryFromExtraction, MemorySeededProfile, MemoryCuratedFold, MemoryFromUser}

// Importance levels of a memory.
const (
	ImportanceTrivial     = 0 // trivial, ephemeral
	ImportanceStandard    = 1 // the default
	ImportanceSignificant = 2 // relationships, key facts: shown on entity cards
	ImportanceCritical    = 3 // core identity (name, role); pinned memories
)

// Memory is the memory-model metadata of an object that is a memory: a
// fact about the user (profile), about a person or organisation in the
// user's life (people) or about something the user works on (project).
// A memory is an ordinary object otherwise — bitemporal, reconciled,
// permission-checked — whose key is its MemoryKey: a memory stored under
// the key of an active one the writer can see becomes a new version of
// that memory (or confirms it), never a second memory.
type Memory struct {
	// Kind is the memory's type: profile, people or project (required).
	Kind MemoryKind `json:"type"`
	// EntityRefs are the entities the memory is about, "<type>:<slug>"
	// (person:john_doe, org:acme_corp); the first is the primary one. A
	// profile memory without refs is about the user ("person:" and the
	// slug of the user id, or person:me).
	EntityRefs []string `json:"entity_refs"`
	// EntityLabel is the primary entity's display name ("John Doe").
	EntityLabel string `json:"entity_label,omitempty"`
	// Subtype classifies the memory; EntityType defaults to the primary
	// ref's type and FactType to fact.
	Subtype MemorySubtype `json:"subtype"`
	// Attribute, when set, is the attribute the memory states (lives_in,
	// works_at, likes:hiking): part of the key, so that two facts about
	// one entity are two memories.
	Attribute string `json:"attribute,omitempty"`
	// Importance is 0 (trivial) … 3 (core identity); nil on input means 1.
	// Pinned forces it to 3.
	Importance *int `json:"importance"`
	// Pinned memories are always in the foundation set and on their
	// entities' cards, and the curator never archives or folds them.
	Pinned bool `json:"pinned"`
	// Key is the memory key, set by the store: kind|entity
	// type|primary slug|fact type (with ":attribute" when one is given).
	Key string `json:"memory_key,omitempty"`
	// Source is the memory's origin (default: extraction when the
	// object's source is "extraction", else user).
	Source MemorySource `json:"source"`
	// FoldedFrom names the memories a curated fold replaced.
	FoldedFrom []string `json:"folded_from,omitempty"`
	// Confirmations counts the times the memory was stated again, Uses
	// the compilations that included it; both are bookkeeping, kept in
	// place (see EffectiveImportance).
	Confirmations int `json:"confirmations,omitempty"`
	Uses          int `json:"uses,omitempty"`
}

// MemorySubtype is a memory's structured classification.
type MemorySubtype struct {
	EntityType EntityType `json:"entityType"`
	FactType   FactType   `json:"factType"`
}

// IsMemory reports whether the object is a memory of the memory model.
func (o *Object) IsMemory() bool { return o.Memory != nil }

// MemoryStatus is ACTIVE for an active memory and ARCHIVED for any other
// (archived, superseded, overridden …: hidden from retrieval, preserved).
func (o *Object) MemoryStatus() string {
	if o.Status == StatusActive || o.Status == "" {
		return "ACTIVE"
	}
	return "ARCHIVED"
}

// maxSlugLen bounds an entity slug, so that keys stay within MaxIDLen.
const maxSlugLen = 64

// EntitySlug normalizes a name into an entity slug: NFC, lowercase,
// punctuation removed ("Sam's" → "sams"), spaces, hyphens and underscores
// become one underscore ("Acme Corp." → "acme_corp", "Sam's sister" →
// "sams_sister"), at most 64 bytes.
func EntitySlug(s string) string {
	var b strings.Builder
	sep := false
	for _, r := range norm.NFC.String(strings.ToLower(s)) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			if sep && b.Len() > 0 {
				b.WriteByte('_')
			}
			sep = false
			b.WriteRune(r)
		case unicode.IsSpace(r) || r == '-' || r == '_' || r == '/' || r == '–' || r == '—':
			sep = true
		}
	}
	out := b.String()
	for len(out) > maxSlugLen {
		// Cut at a rune boundary.
		i := maxSlugLen
		for i > 0 && !utf8RuneStart(out[i]) {
			i--
		}
		out = strings.TrimRight(out[:i], "_")
	}
	return out
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

// EntityRef returns the ref "<type>:<slug of name>".
func EntityRef(t EntityType, name string) string { return string(t) + ":" + EntitySlug(name) }

// ParseEntityRef splits a ref into its type and slug. Errors: CodeInvalid
// naming field when the type is unknown or the slug is not normalized.
func ParseEntityRef(field, ref string) (EntityType, string, error) {
	t, slug, ok := strings.Cut(ref, ":")
	if !ok {
		return "", "", Errorf(CodeInvalid, field, "%q is not an entity ref: want <type>:<slug> (person:john_doe)", ref)
	}
	if err := checkVocab(field, EntityType(t), EntityTypes); err != nil {
		return "", "", err
	}
	if slug == "" || EntitySlug(slug) != slug {
		return "", "", Errorf(CodeInvalid, field, "%q: the slug must be lowercase words joined by underscores, without punctuation (%s:%s)", ref, t, EntitySlug(slug))
	}
	return EntityType(t), slug, nil
}

// NormalizeEntityRef returns ref with its slug normalized ("person:Sam's
// Sister" → "person:sams_sister"); a ref without a type is a person.
func NormalizeEntityRef(ref string) string {
	t, slug, ok := strings.Cut(strings.TrimSpace(ref), ":")
	if !ok {
		t, slug = string(EntityPerson), t
	}
	return strings.ToLower(strings.TrimSpace(t)) + ":" + EntitySlug(slug)
}

// MemoryKey returns the memory key of m: "kind|entity type|primary
// slug|fact type", with ":attribute" after the fact type when m names an
// attribute (people|person|john_doe|relationship,
// profile|person|caroline|fact:lives_in). Defaults must be applied.
func (m *Memory) MemoryKey() string {
	slug := ""
	if len(m.EntityRefs) > 0 {
		_, slug, _ = strings.Cut(m.EntityRefs[0], ":")
	}
	k := string(m.Kind) + "|" + string(m.Subtype.EntityType) + "|" + slug + "|" + string(m.Subtype.FactType)
	if m.Attribute != "" {
		k += ":" + m.Attribute
	}
	return k
}

// PrimaryRef returns the first entity ref ("" when there is none).
func (m *Memory) PrimaryRef() string {
	if len(m.EntityRefs) == 0 {
		return ""
	}
	return m.EntityRefs[0]
}

// Level returns the set importance (1 when unset; 3 when pinned).
func (m *Memory) Level() int {
	switch {
	case m.Pinned:
		return ImportanceCritical
	case m.Importance == nil:
		return ImportanceStandard
	}
	return *m.Importance
}

// Importance thresholds of EffectiveImportance.
const (
	// UsesPerConfirmation is how many compilations that include a memory
	// count as one confirmation.
	UsesPerConfirmation = 10
	// RiseOnce and RiseTwice are the reinforcement at which a memory's
	// importance rises by one and by two levels.
	RiseOnce  = 3
	RiseTwice = 10
)

// Reinforcement is how often the memory was confirmed or referenced:
// its confirmations plus one per UsesPerConfirmation uses.
func (m *Memory) Reinforcement() int { return m.Confirmations + m.Uses/UsesPerConfirmation }

// EffectiveImportance is the importance ranking, cards, the foundation
// set and the curator read: the set importance, raised by reinforcement
// — one level at RiseOnce (3) confirmations-or-references, two at
// RiseTwice (10) — but never above 2 by reinforcement alone (3 is core
// identity, which only a writer or a pin decides) and never below the set
// importance. A pinned memory is 3.
func (m *Memory) EffectiveImportance() int {
	lvl := m.Level()
	if m.Pinned || lvl >= ImportanceSignificant {
		return lvl
	}
	rise := 0
	switch r := m.Reinforcement(); {
	case r >= RiseTwice:
		rise = 2
	case r >= RiseOnce:
		rise = 1
	}
	return min(ImportanceSignificant, lvl+rise)
}

// applyMemoryDefaults fills a memory's defaults and derives its key; the
// object's key defaults to the memory key and its canonical entity ids
// include the refs. It is idempotent.
func (o *Object) applyMemoryDefaults() {
	m := o.Memory
	if m == nil {
		return
	}
	for i, r := range m.EntityRefs {
		if strings.Contains(r, ":") {
			t, slug, _ := strings.Cut(r, ":")
			m.EntityRefs[i] = strings.ToLower(t) + ":" + EntitySlug(slug)
		}
	}
	if len(m.EntityRefs) == 0 && m.Kind == MemoryProfile {
		who := EntitySlug(o.UserID)
		if who == "" {
			who = "me"
		}
		m.EntityRefs = []string{string(EntityPerson) + ":" + who}
	}
	if m.Subtype.EntityType == "" && len(m.EntityRefs) > 0 {
		t, _, _ := strings.Cut(m.EntityRefs[0], ":")
		m.Subtype.EntityType = EntityType(t)
	}
	if m.Subtype.FactType == "" {
		m.Subtype.FactType = FactFact
	}
	if m.Attribute != "" {
		parts := strings.Split(m.Attribute, ":")
		for i, p := range parts {
			parts[i] = EntitySlug(p)
		}
		m.Attribute = strings.Join(parts, ":")
	}
	if m.Pinned {
		m.Importance = Ptr(ImportanceCritical)
	} else if m.Importance == nil {
		m.Importance = Ptr(ImportanceStandard)
	}
	if m.Source == "" {
		m.Source = MemoryFromUser
		if o.Source == string(MemoryFromExtraction) {
			m.Source = MemoryFromExtraction
		}
	}
	if m.EntityLabel == "" && len(m.EntityRefs) > 0 {
		_, slug, _ := strings.Cut(m.EntityRefs[0], ":")
		m.EntityLabel = labelOf(slug)
	}
	m.Key = m.MemoryKey()
	if o.Key == "" {
		o.Key = m.Key
	}
	for _, r := range m.EntityRefs {
		if !containsString(o.CanonicalEntityIDs, r) {
			o.CanonicalEntityIDs = append(o.CanonicalEntityIDs, r)
		}
	}
}

// ApplyMemoryDefaults fills the defaults of a memory's metadata (see
// Memory) and, when the object has no key yet, sets it to the memory
// key. A store calls it before it assigns a key of its own.
func (o *Object) ApplyMemoryDefaults() { o.applyMemoryDefaults() }

// labelOf turns a slug into a display label: "john_doe" → "John Doe".
func labelOf(slug string) string {
	words := strings.Split(slug, "_")
	for i, w := range words {
		if w == "" {
			continue
		}
		r := []rune(w)
		r[0] = unicode.ToUpper(r[0])
		words[i] = string(r)
	}
	return strings.Join(words, " ")
}

func containsString(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// validateMemory checks a defaulted memory.
func (o *Object) validateMemory() error {
	m := o.Memory
	if m == nil {
		return nil
	}
	if m.Kind == "" {
		return Errorf(CodeInvalid, "memory.type", "required: profile, people or project")
	}
	if err := checkVocab("memory.type", m.Kind, MemoryKinds); err != nil {
		return err
	}
	if len(m.EntityRefs) == 0 {
		return Errorf(CodeInvalid, "memory.entity_refs", "a %s memory needs at least one entity ref (<type>:<slug>)", m.Kind)
	}
	if len(m.EntityRefs) > MaxListLen {
		return Errorf(CodeTooLarge, "memory.entity_refs", "more than %d entries", MaxListLen)
	}
	for i, r := range m.EntityRefs {
		if _, _, err := ParseEntityRef("memory.entity_refs["+strconv.Itoa(i)+"]", r); err != nil {
			return err
		}
	}
	checks := []error{
		checkVocab("memory.subtype.entityType", m.Subtype.EntityType, EntityTypes),
		checkVocab("memory.subtype.factType", m.Subtype.FactType, FactTypes),
		checkVocab("memory.source", m.Source, MemorySources),
	}
	for _, err := range checks {
		if err != nil {
			return err
		}
	}
	if len(m.FoldedFrom) > MaxListLen {
		return Errorf(CodeTooLarge, "memory.folded_from", "more than %d entries", MaxListLen)
	}
	for _, f := range []struct{ name, v string }{{"memory.entity_label", m.EntityLabel}, {"memory.attribute", m.Attribute}} {
		if err := checkID(f.name, f.v, false); err != nil {
			return err
		}
	}
	if m.Importance != nil && (*m.Importance < ImportanceTrivial || *m.Importance > ImportanceCritical) {
		return Errorf(CodeInvalid, "memory.importance", "must be 0 (trivial) … 3 (core identity), got %d", *m.Importance)
	}
	if m.Pinned && m.Level() != ImportanceCritical {
		return Errorf(CodeInvalid, "memory.importance", "a pinned memory has importance 3")
	}
	if m.Confirmations < 0 || m.Uses < 0 {
		return Errorf(CodeInvalid, "memory.confirmations", "must not be negative")
	}
	if k := m.MemoryKey(); o.Key != k {
		return Errorf(CodeInvalid, "key", "a memory's key is its memory key %q (leave key empty)", k)
	}
	if len(o.Key) > MaxIDLen {
		return Errorf(CodeTooLarge, "key", "the memory key is longer than %d bytes", MaxIDLen)
	}
	return nil
}

// MemoryActivity is the latest of the memory's confirmation and use: what
// recency and staleness are measured from.
func (o *Object) MemoryActivity() time.Time {
	t := o.LastConfirmed
	if o.LastUsed != nil && o.LastUsed.After(t) {
		t = *o.LastUsed
	}
	if t.IsZero() {
		t = o.TxStart
	}
	return t
}

// FoundationRank places a memory in the foundation set every compilation
// considers: 2 when pinned, 1 with importance 3 (core identity), 0 for
// any other object.
func (o *Object) FoundationRank() int {
	switch m := o.Memory; {
	case m == nil:
		return 0
	case m.Pinned:
		return 2
	case m.Level() == ImportanceCritical:
		return 1
	}
	return 0
}
