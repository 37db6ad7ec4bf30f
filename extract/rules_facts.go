package extract

import (
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/temporal"
)

// valueKind says what a fact's value must look like to be kept.
type valueKind int

const (
	anyValue    valueKind = iota
	properValue           // a proper name, of a place or a person: "Boston", "the Bay Area", "Ana"
	jobValue              // an occupation; " at <employer>" is split off
	roleValue             // what "I'm a ..." names: an occupation, identity or diet
	hasValue              // "three kids", "a dog named Rex"
	foodValue             // "meat", "dairy"
	ingValue              // a plan in the -ing form: "adopting a kid"
	lifeValue             // a plan starting with a life verb: "move to Lisbon"
	ageValue              // a number of years
	teachValue            // a subject taught: "yoga" gives "yoga teacher"
	nameValue             // a person's name: capitalised, not a nationality ("Alex", not "Italian")
	likedKind             // what "I'm a yoga person" likes: not a time of day ("a morning person")
	titleValue            // a role in an organisation, which may start like a pronoun ("IT director")
)

// factPattern is one way of stating a fact. The value is the last
// submatch; for "my favourite X is Y" the attribute takes X.
type factPattern struct {
	re   *pattern
	attr string
	kind valueKind
	conf tenure.Confidence
	// text renders the fact: %[1]s is the subject, %[2]s the value.
	text string
	// change marks a statement of change ("I moved to"), whose dates say
	// when the fact became true.
	change bool
	// prefix opens the value once it is cut to what is stated: the verb
	// of a role said by what a person does ("looks after" the rota).
	prefix string
}

const numberWords = `\d{1,3}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|(?:thir|four|fif|six|seven|eigh|nine)teen|(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:-\w+)?|a\s+hundred`

func fp(rest string) *pattern {
	return mustPattern(`(?i)^i(?:\s+(?:currently|now|still|actually|also|really|just|recently|finally|absolutely|totally))*` + rest)
}

// selfPatterns are first-person statements about the speaker, tried in
// order; every one that matches yields a fact.
var selfPatterns = []factPattern{
	{re: fp(`(?:\s+live|'ve\s+lived|\s+have\s+lived)\s+in\s+(.+)`), attr: "lives_in", kind: properValue, conf: tenure.ConfidenceHigh, text: "%s lives in %s"},
	{re: fp(`(?:'ve|\s+have)?\s+(?:moved|relocated)\s+(?:here\s+)?to\s+(.+)`), attr: "lives_in", kind: properValue, conf: tenure.ConfidenceHigh, text: "%s lives in %s", change: true},
	{re: mustPattern(`(?i)^we(?:'ve|\s+have)?(?:\s+(?:just|recently|finally))*\s+(?:moved|relocated)\s+(?:here\s+)?to\s+(.+)`), attr: "lives_in", kind: properValue, conf: tenure.ConfidenceMedium, text: "%s lives in %s", change: true},
	{re: fp(`(?:'m|\s+am)(?:\s+(?:finally|actually|soon))*\s+(?:moving|relocating)\s+to\s+(.+)`), attr: "lives_in", kind: properValue, conf: tenure.ConfidenceMedium, text: "%s is moving to %s", change: true},
	{re: fp(`(?:'m|\s+am)\s+(?:now\s+|currently\s+)?based\s+in\s+(.+)`), attr: "lives_in", kind: properValue, conf: tenure.ConfidenceHigh, text: "%s lives in %s"},
	{re: fp(`(?:'m|\s+am)\s+in\s+(.+?)\s+now$`), attr: "lives_in", kind: properValue, conf: tenure.ConfidenceMedium, text: "%s lives in %s"},
	{re: fp(`(?:'m|\s+am)\s+(?:originally\s+)?from\s+(.+)`), attr: "from", kind: properValue, conf: tenure.ConfidenceHigh, text: "%s is from %s"},
	{re: fp(`(?:'ve|\s+have)?\s+(?:moved|relocated)\s+(?:here\s+)?to\s+.+?\s+from\s+(.+)`), attr: "from", kind: properValue, conf: tenure.ConfidenceHigh, text: "%s is from %s"},
	{re: fp(`\s+grew\s+up\s+in\s+(.+)`), attr: "from", kind: properValue, conf: tenure.ConfidenceHigh, text: "%s grew up in %s"},
	{re: fp(`(?:\s+work|'ve\s+worked|\s+have\s+worked)\s+` + workAdverbs + `(?:at|for)\s+(.+)`), attr: "works_at", kind: anyValue, conf: tenure.ConfidenceHigh, text: "%s works at %s"},
	{re: fp(`\s+work\s+as\s+(?:an?\s+)?(.+)`), attr: "job", kind: jobValue, conf: tenure.ConfidenceHigh, text: "%s works as %s"},
	{re: fp(`(?:\s+work|'ve\s+worked|\s+have\s+worked)\s+` + workAdverbs + `(?:at|for)\s+.+?\s+as\s+(?:an?\s+)?(.+)`), attr: "job", kind: jobValue, conf: tenure.ConfidenceHigh, text: "%s works as %s"},
	// A change of employer: "I left Initech to join Globex", "I've joined
	// Globex as a data engineer", "I started a new job at Globex".
	{re: fp(`(?:'ve|\s+have)?(?:\s+(?:just|recently|finally))*\s+(?:left\s+.+?\s+(?:to\s+join|for)|joined|started\s+(?:a\s+new\s+job\s+|working\s+)?(?:at|for|with))\s+(.+)`), attr: "works_at", kind: properValue, conf: tenure.ConfidenceHigh, text: "%s works at %s", change: true},
	{re: fp(`(?:'ve|\s+have)?(?:\s+(?:just|recently|finally))*\s+(?:left\s+.+?\s+to\s+join|joined)\s+.+?\s+as\s+(?:an?\s+)?(.+)`), attr: "job", kind: jobValue, conf: tenure.ConfidenceHigh, text: "%s works as %s", change: true},
	{re: fp(`(?:'ve|\s+have)?\s+got\s+(?:the|a|my)\s+(?:new\s+)?job\s+(?:at|with)\s+(.+)`), attr: "works_at", kind: anyValue, conf: tenure.ConfidenceHigh, text: "%s works at %s", change: true},
	{re: fp(`\s+teach\s+(\w+)`), attr: "job", kind: teachValue, conf: tenure.ConfidenceMedium, text: "%s works as %s"},
	{re: fp(`(?:'m|\s+am)\s+(?:more\s+of\s+|definitely\s+|totally\s+|such\s+)?an?\s+(\w+)\s+person$`), attr: "likes", kind: likedKind, conf: tenure.ConfidenceMedium, text: "%s likes %s"},
	{re: fp(`(?:'m|\s+am)\s+(?:a\s+)?(?:huge\s+|big\s+|massive\s+|great\s+)?fan\s+of\s+(.+)`), attr: "likes", kind: anyValue, conf: tenure.ConfidenceHigh, text: "%s likes %s"},
	{re: fp(`(?:'m|\s+am)\s+(?:really\s+|so\s+|super\s+|totally\s+)?into\s+(.+)`), attr: "likes", kind: anyValue, conf: tenure.ConfidenceMedium, text: "%s likes %s"},
	{re: fp(`\s+(?:love|like|enjoy|adore)\s+(.+)`), attr: "likes", kind: anyValue, conf: tenure.ConfidenceHigh, text: "%s likes %s"},
	{re: fp(`\s+(?:hate|dislike|detest|can't\s+stand|cannot\s+stand)\s+(.+)`), attr: "dislikes", kind: anyValue, conf: tenure.ConfidenceHigh, text: "%s dislikes %s"},
	{re: fp(`\s+(?:generally\s+|usually\s+)?prefer\s+(.+)`), attr: "prefers", kind: anyValue, conf: tenure.ConfidenceHigh, text: "%s prefers %s"},
	{re: fp(`\s+(?:don't|do\s+not)\s+(?:really\s+)?(?:like|enjoy)\s+(.+)`), attr: "dislikes", kind: anyValue, conf: tenure.ConfidenceHigh, text: "%s dislikes %s"},
	{re: fp(`(?:'m|\s+am)\s+not\s+(?:a\s+(?:big\s+|huge\s+)?fan\s+of|into)\s+(.+)`), attr: "dislikes", kind: anyValue, conf: tenure.ConfidenceMedium, text: "%s dislikes %s"},
	{re: fp(`\s+(?:don't|do\s+not|never|can't|cannot|can\s+not)\s+eat\s+(.+)`), attr: "diet", kind: foodValue, conf: tenure.ConfidenceHigh, text: "%s does not eat %s"},
	{re: fp(`(?:\s+have|'ve\s+got|\s+have\s+got)\s+(.+)`), attr: "has", kind: hasValue, conf: tenure.ConfidenceHigh, text: "%s has %s"},
	{re: fp(`(?:'m|\s+am)\s+(?:going|planning|hoping)\s+to\s+(.+)`), attr: "plans", kind: lifeValue, conf: tenure.ConfidenceMedium, text: "%s plans to %s"},
	{re: fp(`\s+plan\s+to\s+(.+)`), attr: "plans", kind: lifeValue, conf: tenure.ConfidenceMedium, text: "%s plans to %s"},
	{re: fp(`(?:'m|\s+am)\s+(?:thinking\s+(?:about|of)|planning\s+on|considering)\s+(.+)`), attr: "plans", kind: ingValue, conf: tenure.ConfidenceMedium, text: "%s is considering %s"},
	{re: fp(`(?:'m|\s+am)\s+(` + numberWords + `)(?:\s+years?\s+old)?$`), attr: "age", kind: ageValue, conf: tenure.ConfidenceHigh, text: "%s is %s years old"},
	{re: fp(`\s+(?:just\s+)?turned\s+(` + numberWords + `)\b`), attr: "age", kind: ageValue, conf: tenure.ConfidenceHigh, text: "%s is %s years old", change: true},
}

// amA is "I'm a/an X", whose attribute depends on X's head noun; amThe is
// "I'm the operations lead at Fernhill".
var (
	amA   = fp(`(?:'m|\s+am)\s+an?\s+(.+)`)
	amThe = fp(`(?:'m|\s+am)\s+the\s+(?:new\s+)?(.+?)\s+(?:at|for|of)\s+([A-Z].*)$`)
	// amTheBare is "I'm the new secretary", with no organisation.
	amTheBare = fp(`(?:'m|\s+am)\s+(?:now\s+)?the\s+(?:new\s+|current\s+|acting\s+|interim\s+)?([a-z][a-z-]*(?:\s+[a-z][a-z-]*){0,2})$`)
)

// Favourites name their attribute: "my favorite book is X", "X is my
// favorite author".
var (
	favoriteRe    = mustPattern(`(?i)^my\s+(?:all-time\s+)?favou?rite\s+([a-z]+(?:\s+[a-z]+)?)\s+(?:is|are)\s+(.+)`)
	favoriteInvRe = mustPattern(`(?i)^(.+?)\s+(?:is|are)\s+my\s+(?:all-time\s+)?favou?rite\s+([a-z]+(?:\s+[a-z]+)?)$`)
)

// matchFacts returns the profile and people facts a human speaker states
// in a sentence. Questions, hypotheticals ("if I lived in"), negations ("I
// don't live in"), reported speech and jokes state nothing.
func (r *Rules) matchFacts(mc *messageContext, s sentence) []Fact {
	if !mc.human || mc.joking || s.todo {
		return nil
	}
	var out []Fact
	text := asClauses(discourseRe.ReplaceAllString(s.text, ""))
	defer func() {
		if o := mentionedOrg(mc, text); o != "" && mc.org == "" {
			// "Who's our buyer contact at Bodegas Lara?": whom a
			// "their" in the sentences after it stands for.
			mc.org = o
		}
	}()
	if facts := r.contactFacts(mc, text); len(facts) > 0 {
		return facts
	}
	if m := whoRe.FindStringSubmatch(text); m != nil {
		// "Tobias, who leads the design team now, will present ...": the
		// relative clause is said of the name, and so is the rest.
		for _, c := range cutClauses(m[1] + " " + m[2]) {
			out = append(out, r.clauseFacts(mc, tidy(c))...)
			break
		}
		text = m[1] + " " + m[3]
	}
	if m := introRe.FindStringSubmatch(text); m != nil {
		// "Meet Tobias Klein, our new art director, ...".
		if what, _, _ := strings.Cut(m[2], ","); !orgKindRe.MatchString("is " + what) {
			out = append(out, r.apposition(mc, m[1], what)...)
		}
		return out
	}
	if m := appositionRe.FindStringSubmatch(text); m != nil {
		// "Hollis & Co, the caterer, is based in Oakland": the
		// apposition says what the name is, the rest is said of it.
		orgAppos := orgApposition(m[2], m[3])
		if !orgAppos && !orgPredicateRe.MatchString(m[3]) && !orgKindRe.MatchString(m[3]) {
			out = append(out, r.apposition(mc, m[1], m[2])...)
		}
		if orgAppos || orgKindRe.MatchString("is "+m[2]) {
			// "Greenhive, the beekeeping group, is based in Otley".
			mc.org = m[1]
		}
		text = m[1] + " " + m[3]
	} else if m := appositionFirstRe.FindStringSubmatch(text); m != nil && (strings.HasPrefix(m[2], "the ") || orgNoun(m[1])) {
		// "Our lender, the Hallé Trust, is based in Manchester": a name
		// with an article is an organisation's, and so is one the
		// apposition says is a kind of organisation ("the building's
		// management company, Arden Estates,").
		mc.org = m[2]
		fb := factBuilder{r: r, mc: mc, clause: text}
		fb.organization(m[2], m[4], true)
		return append(out, fb.out...)
	} else if m != nil {
		if !orgPredicateRe.MatchString(m[4]) && !orgKindRe.MatchString(m[4]) {
			// The determiner says the apposition is someone's ("the
			// installer", "my supervisor").
			owner, _, _ := strings.Cut(text, " ")
			what := "the " + m[1]
			if lower(owner) == "my" || strings.HasSuffix(owner, "'s") && !strings.Contains(m[1], "'") {
				// "Sunniva's agent, Tom Reyes, ...": whose they are.
				what = owner + " " + m[1]
			}
			facts := r.apposition(mc, m[2], what)
			if employer := m[3]; len(facts) > 0 && employer != "" {
				// "Our accountant, Sofia Mendes from Baker Tilly, ...".
				fb := factBuilder{r: r, mc: mc, clause: text}
				fb.add(FactPerson, m[2], factPattern{kind: anyValue, conf: tenure.ConfidenceHigh, text: "%s works at %s"}, "works_at", employer)
				facts = append(facts, fb.out...)
			} else if len(facts) > 0 && lower(owner) == "their" && mc.lastOrg != "" {
				// "Their manager, Ciara Byrne, ...": the organisation
				// named just before employs them.
				fb := factBuilder{r: r, mc: mc, clause: text}
				fb.add(FactPerson, m[2], factPattern{kind: anyValue, conf: tenure.ConfidenceMedium, text: "%s works at %s"}, "works_at", mc.lastOrg)
				facts = append(facts, fb.out...)
			}
			out = append(out, facts...)
		}
		text = m[2] + " " + m[4]
	}
	clauses := cutClauses(andNameRe.ReplaceAllString(andSubjectRe.ReplaceAllString(text, ", $1"), ", $1"))
	if s.question {
		// "My dad turns 60 next week, any gift ideas?" states a fact
		// before it asks; the asking clause states nothing.
		clauses = clauses[:len(clauses)-1]
	}
	// "Harlow Media bought the Courier last year. They're a Nottingham
	// group": the name the sentence before named is whom "they" opening
	// this one stands for.
	prevName, prevSelf, named := "", false, mc.sentenceName
	defer func() { mc.sentenceName = named }()
	for _, c := range clauses {
		c = tidy(discourseRe.ReplaceAllString(c, ""))
		if r.weOrg(mc, c, &out) || r.theyOrg(mc, named, c, &out) {
			// "We're Loomwork ... we're based in Porto", "Ribera Labour
			// confirmed eighteen pickers, they're a co-op out of Aranda".
			continue
		}
		if n := clauseName(c); n != "" {
			named = n
		}
		self := prevSelf
		prevSelf = firstPersonRe.MatchString(c) || self && len(strings.Fields(c)) == 1 // ", freelance,"
		if mc.org != "" && bareSizeRe.MatchString(c) {
			// "Copperline is a family firm out of Bilbao, about 30
			// people, and ...": the organisation's size, said on its own.
			fb := factBuilder{r: r, mc: mc, clause: c}
			fb.organization(mc.org, "with "+c, true)
			out = append(out, fb.out...)
			continue
		}
		if self && bareBasedRe.MatchString(c) {
			// "I'm the sound recordist, freelance, based in Rotterdam":
			// the speaker is.
			out = append(out, r.clauseFacts(mc, "I'm "+c)...)
			prevSelf = true
			continue
		}
		if name := prevName; name != "" && articleNounRe.MatchString(c) {
			// "Our caterer is Tasca Verde, a family-run kitchen in Gaia
			// with 15 staff": a noun phrase after a name says what it
			// is; when that is an organisation, the name has no role.
			facts := r.clauseFacts(mc, name+" is "+c)
			if slices.ContainsFunc(facts, func(f Fact) bool { return f.Kind == FactOrganization }) {
				out = slices.DeleteFunc(out, func(f Fact) bool { return f.Kind == FactPerson && f.Subject == name })
			}
			out = append(out, facts...)
			prevName = ""
			continue
		}
		if name := prevName; name != "" && definiteRe.MatchString(c) && len(words(c)) <= 6 {
			// "... is Priyesh Shah, their transport planner": what the
			// name is, said after it.
			if facts := r.apposition(mc, name, c); len(facts) > 0 {
				out = append(out, facts...)
				prevName = ""
				continue
			}
		}
		prevName = trailingName(c)
		if reportedRe.MatchString(c) {
			// "My partner works at Spotify, she says ...": what follows
			// a report is someone else's word.
			break
		}
		if c == "" || hypotheticalRe.MatchString(c) {
			continue
		}
		out = append(out, r.clauseFacts(mc, c)...)
	}
	return out
}

// Clauses without a subject that go on about the one before: a size
// ("about 30 people"), where one is based ("based in Rotterdam"), after a
// clause in the first person.
var (
	bareSizeRe    = mustPattern(`(?i)^(?:about|around|roughly|some|over|nearly|almost)?\s*(?:\d[\d,]*|` + numberWords + `)\s+(?:people|staff|employees|workers)$`)
	bareBasedRe   = mustPattern(`(?i)^(?:now\s+)?based\s+(?:in|out\s+of)\s+[A-Z]`)
	firstPersonRe = mustPattern(`(?i)^(?:i|i'm|i've|i'd)\b`)
)

// Clause structures around a name: a relative clause ("Tobias, who leads
// the design team, will ..."), an apposition in brackets ("Ingrid (our
// main contact) prefers ..."), and an introduction ("Meet Tobias Klein,
// our new art director").
var (
	whoRe        = mustPattern(`^((?:(?:Mr|Mrs|Ms|Dr|Prof)\.?\s+)?[A-Z][\p{L}'-]*(?:\s+[A-Z][\p{L}'-]*){0,2}),\s+who(?:'s|\s+)([^,]{3,60}),\s+(.+)$`)
	parenApposRe = mustPattern(`^((?:(?:Mr|Mrs|Ms|Dr|Prof)\.?\s+)?[A-Z][\p{L}'-]*(?:\s+[A-Z][\p{L}'-]*){0,2})\s+\(((?:our|my|the|their|your|a|an)\s+[^)]{2,40})\)\s+`)
	introRe      = mustPattern(`^(?i:meet|welcome|say\s+hi\s+to|say\s+hello\s+to|please\s+welcome|introducing)\s+((?:(?:Mr|Mrs|Ms|Dr|Prof)\.?\s+)?[A-Z][\p{L}'-]*(?:\s+[A-Z][\p{L}'-]*){0,2}),\s+((?:our|my|the|their|your)\s+.+)$`)
)

// asClauses writes an apposition in brackets as one between commas.
func asClauses(s string) string {
	return parenApposRe.ReplaceAllString(s, "$1, $2, ")
}

// orgPredicateRe is what is said of an organisation, not a person: an
// apposition before it names what the organisation is, not a role.
var orgPredicateRe = mustPattern(`(?i)^(?:is|was|are)\s+(?:headquartered|incorporated|founded|listed)\b|^has\s+(?:about\s+|around\s+|over\s+|nearly\s+)?\d[\d,]*\s+(?:employees|staff|people|engineers|offices|stores)\b`)

// relationOnlyRe is an apposition that names a relation and nothing else:
// "Keiko's husband", "my supervisor".
var relationOnlyRe = mustPattern(`(?i)^` + relativeOwner + `\s+` + relativeMods + `(` + relations + `)(?:\s+(?:from|at)\s+[^,]{2,30})?$`)

// apposition returns the role a name's apposition states ("Dr. Okafor, our
// facilitator"), when it is one.
func (r *Rules) apposition(mc *messageContext, name, what string) []Fact {
	if !properNames(name) || isOrgName(name) {
		return nil
	}
	what = strings.TrimSpace(what)
	if m := relationOnlyRe.FindStringSubmatch(what); m != nil {
		// "Femi, Keiko's husband, ...", "My supervisor, Dr. Okonkwo,
		// ...": a relative's name.
		fb := factBuilder{r: r, mc: mc, clause: name + ", " + what}
		subject := fb.relativeSubject(m[1], m[2])
		mc.relation, mc.relSubject, mc.person = lower(m[2]), subject, name
		fb.add(FactPerson, subject, nameFact, "name", name)
		return fb.out
	}
	if m := namedOwnerRe.FindStringSubmatch(what); m != nil && isRole(m[2]) {
		// "Sunniva's agent, Tom Reyes, ...": the part they play for
		// the person named, said like a relation.
		fb := factBuilder{r: r, mc: mc, clause: name + ", " + what}
		mc.person = name
		fb.add(FactPerson, m[1]+" "+lower(m[2]), nameFact, "name", name)
		return fb.out
	}
	definite := definiteRe.MatchString(what)
	for _, a := range []string{"our ", "my ", "the ", "their ", "your ", "a ", "an ", "new "} {
		what = strings.TrimPrefix(what, a)
	}
	v := titleOf(what)
	if !isRole(v) && !(definite && agentNoun(v)) {
		return nil
	}
	fb := factBuilder{r: r, mc: mc, clause: name + ", " + what}
	mc.person = name
	fb.add(FactPerson, name, factPattern{kind: titleValue, conf: tenure.ConfidenceHigh, text: "%s is the %s"}, "role", v)
	return fb.out
}

// namedOwnerRe is a part played for someone named: "Sunniva's agent".
var namedOwnerRe = mustPattern(`^([A-Z][\p{L}-]+'s)\s+([a-z][a-z-]+)$`)

// orgNoun reports whether a noun phrase's head names a kind of
// organisation ("management company", "caterer's firm").
func orgNoun(np string) bool {
	head := lastWord(lower(np))
	return head != "" && orgKindRe.MatchString("is a "+head) && !isOccupation(head) && !personNoun(head)
}

// definiteRe opens an apposition that says which one: "the installer",
// "our accompanist", where "a runner" says what kind.
var definiteRe = mustPattern(`(?i)^(?:our|my|the|their|your|his|her)\s`)

// orgApposition reports whether an apposition says the name before it is
// an organisation's: a kind of organisation ("our parts supplier", "the
// family firm") when the rest says what only an organisation is ("has
// been trading since 1987"), or a kind no person is ("the bakery").
func orgApposition(what, rest string) bool {
	if !orgKindRe.MatchString("is a " + definiteRe.ReplaceAllString(what, "")) {
		return false
	}
	if !isOccupation(lastWord(what)) {
		return true
	}
	return orgSinceRe.MatchString(rest) || orgFoundedRe.MatchString(rest) || orgEmployeesRe.MatchString(rest) || orgSizeRe.MatchString(rest)
}

// articleNounRe is a clause that is a noun phrase and nothing more: "a
// family-run kitchen in Gaia with 15 staff".
var articleNounRe = mustPattern(`(?i)^(?:a|an)\s+[\p{L}-]+(?:\s+[\p{L}\d,-]+)*$`)

// trailingNameRe is a clause that ends with a name: "our caterer is Tasca
// Verde".
var trailingNameRe = mustPattern(`\bis\s+(?:(?:probably|now|still|actually|definitely|likely|also)\s+)?((?:[A-Z][\p{L}'-]+)(?:\s+(?:&\s+)?[A-Z][\p{L}'-]+){0,2})$`)

// trailingName is the name a clause ends with after "is", or "".
func trailingName(c string) string {
	if m := trailingNameRe.FindStringSubmatch(c); m != nil && properNames(m[1]) {
		return m[1]
	}
	return ""
}

// clauseFacts returns the facts of one clause.
func (r *Rules) clauseFacts(mc *messageContext, c string) []Fact {
	fb := factBuilder{r: r, mc: mc, clause: c}
	ct := newText(c)
	for _, ps := range [][]factPattern{selfPatterns, selfStates} {
		for _, p := range ps {
			if m := p.re.FindTextSubmatch(ct); m != nil {
				fb.add(FactProfile, mc.subject, p, p.attr, m[len(m)-1])
			}
		}
	}
	m := amA.FindTextSubmatch(ct)
	if m == nil {
		m = amBeen.FindTextSubmatch(ct)
	}
	if m != nil {
		if p, ok := classifyNoun(m[1]); ok {
			fb.add(FactProfile, mc.subject, p, p.attr, m[1])
		}
	} else if m := amThe.FindTextSubmatch(ct); m != nil {
		if v := titleOf(m[1]); isRole(v) {
			p := factPattern{kind: titleValue, conf: tenure.ConfidenceHigh, text: "%s works as %s"}
			fb.add(FactProfile, mc.subject, p, "job", v)
			org := m[2]
			if loc := andLowerRe.FindStringIndex(org); loc != nil {
				// "the office manager at Contoso Dental and our
				// booking widget stopped working"
				org = org[:loc[0]]
			}
			fb.add(FactProfile, mc.subject, factPattern{kind: anyValue, conf: tenure.ConfidenceHigh, text: "%s works at %s"}, "works_at", org)
		}
	} else if m := amTheBare.FindTextSubmatch(ct); m != nil {
		// "I'm the new secretary": a position in the group, or an
		// occupation ("the sound recordist").
		if v := titleOf(m[1]); isRole(v) || agentNoun(v) {
			attr := "job"
			if w := words(v); roles[w[len(w)-1]] {
				attr = "role"
			}
			fb.add(FactProfile, mc.subject, factPattern{kind: titleValue, conf: tenure.ConfidenceMedium, text: "%s is the %s"}, attr, v)
		}
	}
	if m := favoriteRe.FindTextSubmatch(ct); m != nil {
		fb.add(FactProfile, mc.subject, favoritePattern, favoriteAttr(m[1]), m[2])
	} else if m := favoriteInvRe.FindTextSubmatch(ct); m != nil {
		fb.add(FactProfile, mc.subject, favoritePattern, favoriteAttr(m[2]), m[1])
	}
	fb.relative(ct)
	fb.named(ct)
	return fb.out
}

var favoritePattern = factPattern{kind: anyValue, conf: tenure.ConfidenceHigh}

func favoriteAttr(thing string) string {
	return "favorite_" + strings.Join(words(thing), "_")
}

// factBuilder collects the facts of one clause.
type factBuilder struct {
	r      *Rules
	mc     *messageContext
	clause string
	out    []Fact
}

// add keeps a fact when its value, cut to the stated part, looks like the
// kind of thing the pattern expects.
func (fb *factBuilder) add(kind FactKind, subject string, p factPattern, attr, raw string) {
	if p.kind == hasValue {
		// "three kids and a dog" is two things had.
		if a, b, ok := strings.Cut(raw, " and "); ok {
			fb.add(kind, subject, p, attr, a)
			fb.add(kind, subject, p, attr, b)
			return
		}
	}
	v, ok := cleanValue(raw, p.kind)
	if !ok {
		return
	}
	if p.prefix != "" {
		v = p.prefix + " " + v
	}
	text, shown := p.text, v
	switch p.kind {
	case jobValue, roleValue:
		if employer, ok := employerOf(raw); ok {
			fb.add(kind, subject, factPattern{kind: anyValue, conf: p.conf, text: "%s works at %s"}, "works_at", employer)
		}
		shown = article(v) + " " + v
	case teachValue:
		shown = article(v) + " " + v
	case foodValue:
		v = "no " + v
	}
	if text == "" {
		text = "%s's " + strings.ReplaceAll(attr, "_", " ") + " is %s"
	}
	if attr == "works_at" && orgLikeName(strings.TrimPrefix(v, "the ")) {
		// "Lars joined Alder Bank last spring, he's their digital
		// lead": a named employer is whom a "their" after it stands for.
		fb.mc.org = v
	}
	f := Fact{Kind: kind, Subject: subject, Attribute: attr, Value: v, Refs: []string{fb.mc.msg.ID}, Confidence: p.conf}
	if pluralRelation.MatchString(subject) {
		text = pluralVerbs.Replace(text)
	}
	f.Text = strings.Replace(strings.Replace(text, "%s", subject, 1), "%s", shown, 1)
	if d := fb.r.changeDate(fb.clause, fb.mc.msg.CreatedAt, p.change); d != nil {
		t := d.Date
		f.ValidFrom, f.ValidPrecision = &t, tenure.Precision(d.Granularity)
		if p.change {
			f.Text += sinceOrIn(text) + temporal.Format(*d)
		}
	}
	fb.out = append(fb.out, f)
}

// sinceOrIn joins a fact's text to the date it took effect.
func sinceOrIn(text string) string {
	if strings.Contains(text, "moving") {
		return " in "
	}
	return " since "
}

// changeDate is when a fact took effect: the clause's date when it
// states a change or says "since".
func (r *Rules) changeDate(clause string, ref time.Time, change bool) *tenure.ResolvedDate {
	if !change && !sinceRe.MatchString(clause) {
		return nil
	}
	return r.validFrom(clause, ref)
}

// weaker returns the lower of two confidence levels.
func weaker(a, b tenure.Confidence) tenure.Confidence {
	if tenure.MaxConfidence(a, b) == a {
		return b
	}
	return a
}

var sinceRe = mustPattern(`(?i)\bsince\b`)

func article(v string) string {
	if r, _ := utf8.DecodeRuneInString(v); strings.ContainsRune("aeiouAEIOU", r) {
		return "an"
	}
	return "a"
}

var employerRe = mustPattern(`\s+(?i:at|for)\s+(.+)|\s+with\s+((?:the\s+)?[A-Z].*|the\s+.+)`)

func employerOf(raw string) (string, bool) {
	m := employerRe.FindStringSubmatch(raw)
	if m == nil || durationRe.MatchString(m[1]) {
		// "a nurse for twenty years": how long, not for whom.
		return "", false
	}
	return m[1] + m[2], true
}

// durationRe is a length of time: "twenty years", "a while", "ages".
var durationRe = mustPattern(`(?i)^(?:(?:a|an|about|over|almost|nearly|around|the\s+(?:last|past))\s+)?(?:[\w-]+\s+)?(?:years?|months?|weeks?|days?|decades?|ages|while|long|ever)\b`)
