package extract

import (
	"slices"
	"strings"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/wordnet"
)

// An organisation is often named once and then spoken of by a pronoun: a
// person is "he" or "she", a firm is "they" ("Tidewater Marine, they're a
// chandlery in Oban"), and a speaker's own firm is "we" ("We're Loomwork
// ... we're based in Porto"). The pronoun says the name is an
// organisation's, and what the clause says of it is said of the
// organisation.

// theyOrgRe is a clause about what "they" are: "they're a co-op out of
// Aranda", "they're based in Margate". The first submatch is the verb
// the pronoun takes, the second the rest.
var theyOrgRe = mustPattern(`(?i)^they(?:('re|\s+are|'ve|\s+have|\s+were)\s+|\s+)(.+)$`)

// weAreNameRe introduces the speaker's organisation: "we're Loomwork".
var weAreNameRe = mustPattern(`(?i)^we(?:'re|\s+are)\s+((?-i:[A-Z][\p{L}'&-]*(?:\s+[A-Z][\p{L}'&-]*){0,2}))$`)

// weOrgRe is a clause about the speaker's organisation once it is named:
// "we're based in Porto", "we're nine people", "we've been trading since
// 1998", "we employ 40 staff".
var weOrgRe = mustPattern(`(?i)^we(?:('re|\s+are|'ve|\s+have|\s+were)\s+|\s+)(.+)$`)

// theyOrg reads a clause about "they" as said of the name the sentence
// named last, when no organisation is known yet: what is said must be an
// organisation fact ("based in", "founded in", "a co-op out of"). The
// facts the sentence said of the name as a person's ("the sponsor is
// Tidewater Marine" reads as a role) are dropped. It reports whether it
// read the clause.
func (r *Rules) theyOrg(mc *messageContext, name, c string, out *[]Fact) bool {
	m := theyOrgRe.FindStringSubmatch(c)
	if m == nil || name == "" || mc.org != "" || isSpeaker(name, mc.before) || isSpeaker(name, []tenure.Message{*mc.msg}) {
		return false
	}
	fb := factBuilder{r: r, mc: mc, clause: c}
	if !fb.organization(name, orgClause(m[1], m[2]), true) {
		return false
	}
	mc.org = name
	*out = slices.DeleteFunc(*out, func(f Fact) bool { return f.Kind == FactPerson && f.Subject == name })
	*out = append(*out, fb.out...)
	return true
}

// weOrg reads the speaker's organisation: "we're Loomwork" names it, and
// what a later clause says of "we" is said of it when it is an
// organisation fact. It reports whether it read the clause.
func (r *Rules) weOrg(mc *messageContext, c string, out *[]Fact) bool {
	if m := weAreNameRe.FindStringSubmatch(c); m != nil && orgLikeName(m[1]) {
		mc.ours, mc.org = m[1], m[1]
		return true
	}
	m := weOrgRe.FindStringSubmatch(c)
	if m == nil || mc.ours == "" {
		return false
	}
	fb := factBuilder{r: r, mc: mc, clause: c}
	rest := orgClause(m[1], m[2])
	if bareSizeRe.MatchString(m[2]) {
		// "we're nine people"
		rest = "with " + m[2]
	}
	if !fb.organization(mc.ours, rest, true) {
		return false
	}
	*out = append(*out, fb.out...)
	return true
}

// orgClause puts back the verb a pronoun took, as the organisation
// patterns read it: "are a chandlery in Oban", "have about 40 staff".
func orgClause(verb, rest string) string {
	switch strings.TrimSpace(lower(verb)) {
	case "'re", "are":
		return "are " + rest
	case "'ve", "have":
		return "have " + rest
	case "were":
		return "were " + rest
	}
	return rest
}

// orgLikeName reports whether a name may be an organisation's: proper
// words, which may be possessive ("Pete's Ices").
func orgLikeName(name string) bool {
	for _, w := range strings.Fields(name) {
		if w == "&" {
			continue
		}
		if !isProperName(strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "s'")) {
			return false
		}
	}
	return name != ""
}

// clauseName is the name a clause is about, for a "they" after it: the
// name it ends with after "is" ("the sponsor is Tidewater Marine"), or
// the name it opens with when a verb follows ("Ribera Labour confirmed
// eighteen pickers"). Two names joined by "and" are people more often
// than not, and give none.
func clauseName(c string) string {
	if n := trailingName(c); n != "" {
		return n
	}
	m := namedRe.FindStringSubmatch(c)
	if m == nil || !orgLikeName(m[1]) || strings.HasPrefix(m[2], "and ") {
		return ""
	}
	if strings.HasSuffix(m[1], "'s") || !predicateStart(m[2]) && !strings.HasPrefix(m[2], "is ") && !strings.HasPrefix(m[2], "are ") {
		return ""
	}
	return m[1]
}

// placeKindRe is an organisation said to be a kind of organisation of a
// place: "a Lisbon fund", "a small Bristol agency". The first submatch is
// the place.
var placeKindRe = mustPattern(`(?i)^(?:is|are|was)\s+an?\s+(?:[a-z][\p{L}-]*\s+){0,2}?((?-i:[A-Z][\p{L}-]+))(?:-based)?\s+(?:[a-z][\p{L}-]*\s+)?(?:` + orgKinds + `)\b`)

// placeName reports whether a capitalised word names a place rather than
// a nationality or a language ("a French bakery"), a body ("an NHS
// clinic") or a person: WordNet does not know it as an adjective, and
// files it as a location, does not know it at all, or knows only a
// common noun it spells ("a Derby outfit": WordNet's "derby" is a hat;
// capitalised before the kind of an organisation, it is the town).
func placeName(w string) bool {
	if w == strings.ToUpper(w) || wordnet.Known(w, wordnet.Adjective) {
		return false
	}
	c := wordnet.Class(w, wordnet.Noun)
	return c != "noun.person" && c != "noun.group" && c != "noun.communication"
}

// A person's employer is often not named in the clause that gives their
// role: "their" stands for the organisation the conversation is about
// ("she's their head of purchasing", "Their partner Tomás Reis ..."), and
// an organisation may own the role ("Hallam's logistics contact is
// Priyesh Shah").

// theirRe opens a role said to be an organisation's: "is their", "their".
var theirRe = mustPattern(`(?i)^(?:(?:is|'s|was)\s+)?their\s`)

// theirOrg is the organisation "their" stands for in a clause about
// subject: the last one the message named, or else the last one one of
// the few messages before named; "" when none was.
func (fb *factBuilder) theirOrg(subject string) string {
	last := fb.mc.lastOrg
	if fb.mc.lastOrgAge > maxBefore {
		last = ""
	}
	for _, o := range []string{fb.mc.org, last} {
		if o != "" && !strings.EqualFold(o, subject) {
			return o
		}
	}
	return ""
}

// employedBy adds that subject works at org, when org is known.
func (fb *factBuilder) employedBy(subject, org string) {
	if org == "" {
		return
	}
	fb.add(FactPerson, subject, factPattern{kind: anyValue, conf: tenure.ConfidenceMedium, text: "%s works at %s"}, "works_at", org)
}

// ownerOrg is the organisation a possessive names ("Hallam's" for Hallam
// Foods, named before), or "": a possessive name is an organisation's when
// it reads as one or opens the name of the one the conversation is about.
func (fb *factBuilder) ownerOrg(owner string) string {
	name, ok := strings.CutSuffix(owner, "'s")
	if !ok || !orgLikeName(name) {
		return ""
	}
	if isOrgName(name) {
		return name
	}
	for _, o := range []string{fb.mc.org, fb.mc.lastOrg} {
		if o != "" && (strings.EqualFold(o, name) || strings.HasPrefix(lower(o), lower(name)+" ")) {
			return name
		}
	}
	return ""
}

// orgMentionRe is a name after a part someone plays at it: "our buyer
// contact at Bodegas Lara", "someone from Baker Tilly". The first submatch
// is the part, the second the name.
var orgMentionRe = mustPattern(`(?i)\b([a-z]+)\s+(?:at|from)\s+((?-i:(?:the\s+)?[A-Z][\p{L}'&-]*(?:\s+(?:&\s+)?[A-Z][\p{L}'&-]*){0,2}))`)

// mentionedOrg is the organisation a sentence names as where someone
// plays a part, or "": "Who's our new buyer contact at Bodegas Lara?"
// names no fact, but a "their" in the answer stands for Bodegas Lara.
func mentionedOrg(mc *messageContext, s string) string {
	m := orgMentionRe.FindStringSubmatch(s)
	if m == nil {
		return ""
	}
	part, name := lower(m[1]), strings.TrimPrefix(m[2], "the ")
	if !isRole(part) && !personNoun(part) && !groupWords[part] || !orgLikeName(name) ||
		isSpeaker(name, mc.before) || isSpeaker(name, []tenure.Message{*mc.msg}) || placeKnown(name) {
		return ""
	}
	return m[2]
}

// groupWords name people at an organisation without a part they play.
var groupWords = set(`contact, contacts, people, team, folks, someone, somebody, anyone, staff`)

// placeKnown reports whether WordNet knows a name as a place: "the
// surgeon at Leeds" names a city, not an employer.
func placeKnown(name string) bool {
	return wordnet.Class(name, wordnet.Noun) == "noun.location"
}
