package extract

import (
	"strings"

	"github.com/tenure-dev/tenure"
)

// multiValued attributes hold many values at once; a new value adds to the
// old ones instead of replacing them, so the value is part of the key.
var multiValued = map[string]bool{"likes": true, "dislikes": true, "prefers": true, "has": true, "plans": true, "enjoys": true,
	"hobby": true, "favorite": true, "relation": true}

// MultiValued reports whether an attribute holds many values at once.
func MultiValued(attr string) bool { return multiValued[attr] }

// factTypes classify attributes by the memory model's fact types; any
// other attribute is a plain fact.
var factTypes = map[string]tenure.FactType{
	"likes": tenure.FactPreference, "dislikes": tenure.FactPreference, "prefers": tenure.FactPreference, "enjoys": tenure.FactPreference,
	"favorite": tenure.FactPreference, "diet": tenure.FactPreference, "hobby": tenure.FactHabit,
	"habit": tenure.FactHabit, "routine": tenure.FactHabit, "relation": tenure.FactRelationship,
	"frustrated_by": tenure.FactFriction, "struggles_with": tenure.FactFriction,
}

// coreIdentity attributes are a profile's core identity (name, role):
// importance 3. significant attributes are key facts (importance 2).
var (
	coreIdentity = map[string]bool{"name": true, "job": true, "works_at": true, "role": true}
	significant  = map[string]bool{"relation": true, "allergic_to": true, "lives_in": true, "diet": true}
)

// Memory returns the memory-model metadata of a fact: a fact about the
// speaker is a profile memory about person:<speaker>; a fact about someone
// the speaker knows is a people memory about that person (person:<slug of
// the subject>, "Caroline's sister" → person:carolines_sister), which
// names the speaker's entity too; a fact about an organisation is a people
// memory about org:<slug>. Relationships and a person's name are
// relationship facts, likes and dislikes preferences; core identity (name,
// job, employer) has importance 3, relationships and key facts
// (residence, allergies, diet) 2, anything else 1. The attribute (with the
// value for multi-valued attributes) qualifies the memory key, so that
// every attribute of an entity is a memory of its own.
func (f Fact) Memory() *tenure.Memory {
	m := &tenure.Memory{Kind: tenure.MemoryPeople, Source: tenure.MemoryFromExtraction, EntityLabel: f.Subject}
	ref := tenure.EntityRef(tenure.EntityPerson, f.Subject)
	switch f.Kind {
	case FactProfile:
		m.Kind = tenure.MemoryProfile
	case FactOrganization:
		ref = tenure.EntityRef(tenure.EntityOrg, f.Subject)
	}
	m.EntityRefs = []string{ref}
	if f.Kind == FactPerson {
		if owner, _, ok := strings.Cut(f.Subject, "'s "); ok && owner != "" {
			if o := tenure.EntityRef(tenure.EntityPerson, owner); o != ref {
				m.EntityRefs = append(m.EntityRefs, o)
			}
		}
	}
	m.Subtype.FactType = tenure.FactFact
	if t, ok := factTypes[f.Attribute]; ok {
		m.Subtype.FactType = t
	}
	if f.Kind == FactPerson && f.Attribute == "name" {
		m.Subtype.FactType = tenure.FactRelationship
	}
	importance := tenure.ImportanceStandard
	switch {
	case coreIdentity[f.Attribute] && f.Kind == FactProfile:
		importance = tenure.ImportanceCritical
	case significant[f.Attribute] || m.Subtype.FactType == tenure.FactRelationship || coreIdentity[f.Attribute]:
		importance = tenure.ImportanceSignificant
	}
	m.Importance = tenure.Ptr(importance)
	m.Attribute = f.Attribute
	if multiValued[f.Attribute] {
		m.Attribute += ":" + tenure.EntitySlug(f.Value)
	}
	return m
}

// ConfidenceScore maps an extraction confidence to an object's
// confidence score: high 0.9, medium 0.7, low 0.5.
func ConfidenceScore(c tenure.Confidence) float64 {
	switch c {
	case tenure.ConfidenceHigh:
		return 0.9
	case tenure.ConfidenceMedium:
		return 0.7
	}
	return 0.5
}
