package extract

import (
	"strings"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/wordnet"
)

// FactOrganization is a fact about an organisation ("Northwind is
// headquartered in Porto").
const FactOrganization FactKind = "organization"

var (
	// namedRe splits a clause that opens with a name (one to three
	// capitalised words) from what it says of it.
	namedRe = mustPattern(`^((?:(?:Mr|Mrs|Ms|Dr|Prof)\.?\s+)?[A-Z][\p{L}'-]*(?:\s+(?:&\s+)?[A-Z][\p{L}'-]*){0,2})\s+(.+)$`)
	// appositionRe is a name with what it is set off by commas: "Dr.
	// Okafor, our facilitator, will ...", "Brightside, our agency, is
	// ...". The first submatch is the name, the second the apposition, the
	// third the rest.
	appositionRe = mustPattern(`^((?:(?:Mr|Mrs|Ms|Dr|Prof)\.?\s+)?[A-Z][\p{L}'-]*(?:\s+(?:&\s+)?[A-Z][\p{L}'-]*){0,2}),\s+((?:our|my|the|their|your|a|an|[A-Z][\p{L}-]*'s)\s+[^,]{2,40}),\s+(.+)$`)
	// appositionFirstRe is the apposition first: "Our new designer, Lucía
	// Gómez, starts on Monday". The name may say where the person is
	// from: "Our accountant, Sofia Mendes from Baker Tilly, said ...".
	// The submatches are the apposition, the name, the organisation (or
	// "") and the rest.
	appositionFirstRe = mustPattern(`^(?:[Oo]ur|[Mm]y|[Tt]he|[Tt]heir|[Yy]our|[A-Z][\p{L}-]*'s)\s+(?:new\s+)?([A-Za-z][A-Za-z' -]{1,40}?),\s+((?:(?:Mr|Mrs|Ms|Dr|Prof)\.?\s+|the\s+)?[A-Z][\p{L}'-]+(?:\s+[A-Z][\p{L}'-]+)?)(?:\s+(?:from|at|of)\s+((?:the\s+)?[A-Z][\p{L}'-]*(?:\s+(?:&\s+)?[A-Z][\p{L}'-]*){0,2}))?,\s+(.+)$`)
	// isTheRe is "is the CEO", "is our new head of data".
	isTheRe = mustPattern(`(?i)^(?:is|'s|was)\s+(?:the|our|my|their|his|her|its|your)\s+(?:new\s+|current\s+|acting\s+|interim\s+)?(.+)$`)
	// rolePartRe splits a role from its organisation: "CEO of Northwind".
	rolePartRe = mustPattern(`^(.+?)\s+(?:of|at)\s+((?:the\s+)?[A-Z].*)$`)
	// rolePlaceRe cuts a role from where it is held when that is no name:
	// "SRE lead at our Berlin office".
	rolePlaceRe = mustPattern(`^(.+?)\s+(?:at|in|for|on)\s+(?:our|the|their|its|his|her|my)\s+\S.*$`)
	// joinedAsRe is "joined Acme as head of sales".
	joinedAsRe = mustPattern(`^(?:just\s+|recently\s+)?joined\s+((?:the\s+)?[A-Z][\p{L}&'-]*(?:\s+[A-Z][\p{L}&'-]*){0,2})\s+as\s+(?:an?\s+|the\s+|our\s+|their\s+)?(.+)$`)
	// nameIsRe is "our admin is Julia Park": it names a person a pronoun
	// may stand for next.
	// It names the person's role too, and with "from Dunmore Estates"
	// their employer.
	nameIsRe = mustPattern(`^(?:[Oo]ur|[Mm]y|[Tt]he|[Tt]heir|[Yy]our|[Hh]is|[Hh]er|[A-Z][\p{L}-]*'s)\s+((?:[a-z][a-z'-]*\s+){0,2}?[a-z][a-z-]*|[A-Z]{2,4})\s+(?:(?:this|for\s+the|for\s+this)\s+(?:cycle|year|season|term|round|time|project|release|trip|event)\s+|(?:now|currently)\s+)?is\s+((?:(?:Mr|Mrs|Ms|Dr|Prof)\.?\s+)?[A-Z][\p{L}-]+(?:\s+[A-Z][\p{L}-]+)?)(?:\s+(?:from|at|of)\s+((?:the\s+)?[A-Z][\p{L}'-]*(?:\s+(?:&\s+)?[\p{L}'-]+){0,2}))?(?:\s+(?:from|on|in|at)\s+(?:the|our)\s+[a-z][a-z -]*)?$`)
	// leadsRe is a role said by what a person does: "Emeka heads the
	// surgical team", "Sadia runs the seed library".
	leadsRe = mustPattern(`^(?:now\s+|also\s+|currently\s+)?(heads(?:\s+up)?|manages|runs|leads|chairs|oversees|coordinates|supervises|directs|looks\s+after|(?:is|'s)\s+in\s+charge\s+of)\s+((?:the|our|their|a|an|his|her)\s+.+)$`)
	// employedRe is where a person works, said by when they came: "has
	// been at Alder Bank for nine years", "joined Alder Bank last spring".
	employedRe = mustPattern(`^(?:(?:has|'s)\s+been\s+(?:at|with)|(?:just\s+|recently\s+)?(?:joined|started\s+(?:at|with)))\s+((?:the\s+)?[A-Z][\p{L}&'-]*(?:\s+(?:&\s+)?[A-Z][\p{L}&'-]*){0,2})(?:\s+(?:for|since|in|last|this|a|an|two|three|four|five|six|seven|eight|nine|ten|\d)\b.*)?$`)
	// theOrgRe is an organisation's name with its article: "The
	// Hartwell Foundation ...".
	theOrgRe = mustPattern(`^(?:The|the)\s+([A-Z][\p{L}'-]*(?:\s+(?:&\s+)?[A-Z][\p{L}'-]*){0,3})\s+(.+)$`)
	// kindNameRe is a name after the noun that says what it is, with no
	// commas: "our vendor Cloudgate has ...".
	kindNameRe = mustPattern(`^(?:[Oo]ur|[Tt]he|[Tt]heir)\s+((?:[a-z][a-z-]*\s+)?[a-z][a-z-]*)\s+((?:(?:Mr|Mrs|Ms|Dr|Prof)\.?\s+)?[A-Z][\p{L}'-]*(?:\s+(?:&\s+)?[A-Z][\p{L}'-]*){0,2})\s+([a-z].+)$`)
	// basedRe says where something is based.
	basedRe = mustPattern(`(?i)^(?:is|are|'s)\s+(?:now\s+|also\s+)?based\s+(?:in|out\s+of)\s`)
	// pointNameRe points at a person by name: "that's Marit Jansen".
	pointNameRe = mustPattern(`(?i)^(?:that's|that\s+is|this\s+is|it's|it\s+is)\s+((?-i:(?:(?:Mr|Mrs|Ms|Dr|Prof)\.?\s+)?[A-Z][\p{L}'-]*(?:\s+[A-Z][\p{L}'-]*){0,2}))(?:\s+now)?$`)
	// isAdverbRe is "is" and an adverb before what a person is.
	isAdverbRe = mustPattern(`(?i)^(is|'s|was)\s+(?:also|now|still|actually|currently|officially)\s+`)
	// theyRe is a clause about the organisation named before it.
	theyRe = mustPattern(`(?i)^they(?:'ve|'re|\s+have|\s+are)?\s+(.+)$`)
	// pronounIsRe is "she's the IT director" after a person was named.
	pronounIsRe = mustPattern(`(?i)^(?:she|he)('s|\s+is|\s+works|\s+lives|\s+moved|\s+heads|\s+manages|\s+runs|\s+leads|\s+chairs|\s+oversees|\s+looks\s+after)(\s.+)$`)
)

// Organisation facts: where it is, when it was founded, how many work
// there.
var (
	orgPlaceRe   = mustPattern(`(?i)\b(?:is\s+|are\s+)?(headquartered|based|located)\s+in\s+((?-i:[A-Z][\p{L}-]+(?:\s+[A-Z][\p{L}-]+)?))`)
	orgFoundedRe = mustPattern(`(?i)\b(?:was\s+)?(?:founded|started|established)(?:\s+by\s+[^,;]{2,40}?)?\s+in\s+(\d{4})\b`)
	// orgHQRe is where an organisation's head office is: "its head office
	// is in Bremen".
	orgHQRe        = mustPattern(`(?i)\b(?:its|their)\s+(?:head\s+office|headquarters|hq|main\s+office)\s+(?:is|are)\s+in\s+((?-i:[A-Z][\p{L}-]+(?:\s+[A-Z][\p{L}-]+)?))`)
	orgSitesRe     = mustPattern(`(?i)\bhas\s+(?:\w+\s+){0,2}?(?:offices?|clinics?|stores?|shops?|branches|locations|sites|warehouses|restaurants|studios|factories)\s+in\s+((?-i:[A-Z][\p{L}-]+(?:\s+[A-Z][\p{L}-]+)?))`)
	orgEmployeesRe = mustPattern(`(?i)\b(?:has|have|employs)\s+(?:about\s+|around\s+|roughly\s+|over\s+|nearly\s+|almost\s+|some\s+)?(\d[\d,]*|` + numberWords + `)\s+(?:employees|people|staff|workers|engineers)\b`)
)

// named reads what a clause says of a named person or organisation:
// "Sarah is the CEO of Northwind", "Claire is a surgeon at the Lyon
// university hospital", "Alex works at Airbus as an engineer", "Northwind
// was founded in 2009 and is headquartered in Porto", and "she's the IT
// director" after "our admin is Julia Park".
func (fb *factBuilder) named(c *text) {
	mc := fb.mc
	if relativeInvRe.MatchText(c) {
		return // "John is my cofounder": the relative's
	}
	if m := nameIsRe.FindTextSubmatch(c); m != nil && properNames(m[2]) {
		org := m[3]
		if org == "" {
			// "Hallam's logistics contact is Priyesh Shah", "their
			// buyer is Clara Ruiz": the organisation whose role it is.
			if org = fb.ownerOrg(strings.Fields(c.s)[0]); org == "" && theirRe.MatchText(c) {
				org = fb.theirOrg(m[2])
			}
		}
		fb.nameIs(m[1], m[2], org, strings.HasPrefix(lower(c.s), "my "))
		return
	}
	if m := theyRe.FindTextSubmatch(c); m != nil && mc.org != "" {
		fb.organization(mc.org, m[1], true)
		return
	}
	if m := pointNameRe.FindTextSubmatch(c); m != nil && properNames(m[1]) && !isOrgName(m[1]) {
		// "That's Marit Jansen, she's ...": whom the next clause is about.
		mc.person, mc.relation = m[1], ""
		return
	}
	var subject, rest string
	if m := pronounIsRe.FindTextSubmatch(c); m != nil && mc.person != "" {
		subject, rest = mc.person, strings.TrimSpace(m[1]+m[2])
		if strings.HasPrefix(rest, "'s") {
			rest = "is" + rest[2:]
		}
	} else if m := namedRe.FindTextSubmatch(c); m != nil && properNames(m[1]) && !fb.isRelative(m[1]) {
		subject, rest = m[1], m[2]
		if f := strings.Fields(subject); len(f) == 3 && wordnet.Class(lower(f[0]), wordnet.Noun) == "noun.person" && !honorifics[lower(strings.TrimSuffix(f[0], "."))] {
			// "Candidate Priyanka Rao works at Stripe": a capitalised
			// title that opens the sentence is not part of the name.
			subject = f[1] + " " + f[2]
		}
	} else if m := theOrgRe.FindTextSubmatch(c); m != nil && properNames(m[1]) && isOrgName(m[1]) {
		// "The Hartwell Foundation was founded in 1987".
		subject, rest = m[1], m[2]
	} else if m := kindNameRe.FindTextSubmatch(c); m != nil && properNames(m[2]) {
		switch {
		case theirRe.MatchText(c) && fb.theirOrg(m[2]) != "" &&
			(isRole(m[1]) || wordnet.Class(lastWord(m[1]), wordnet.Noun) == "noun.person"):
			// "Their partner Tomás Reis is the one we've been talking
			// to": a part played at the organisation "their" stands
			// for, even when it can name a relative.
			fb.add(FactPerson, m[2], factPattern{kind: titleValue, conf: tenure.ConfidenceMedium, text: "%s is the %s"}, "role", m[1])
			fb.employedBy(m[2], fb.theirOrg(m[2]))
			mc.person, mc.relation = m[2], ""
			return
		case relationRe.MatchString(m[1]) && lower(firstWord(c.s)) == "our":
			// "Our neighbour Mrs Patel works night shifts at the
			// hospital": a relation of the group, not of the speaker,
			// says who the name is; what follows is said of the name.
			subject, rest = m[2], m[3]
		case !relationWords[lastWord(m[1])]:
			// "Our vendor Cloudgate has a support office in Dublin",
			// "the caterer Hollis & Co": the noun says what the name is.
			if orgNoun(m[1]) || isOrgName(m[2]) {
				fb.mc.org = m[2]
				fb.organization(m[2], m[3], true)
				return
			}
			if !isRole(m[1]) {
				return // "our cat Miso hates car journeys"
			}
			subject, rest = m[2], m[3]
		default:
			return
		}
	} else {
		return
	}
	known := strings.EqualFold(subject, mc.org)
	if basedRe.MatchString(rest) && len(strings.Fields(subject)) > 1 && !strings.EqualFold(subject, mc.person) && !isSpeaker(subject, mc.before) && !isSpeaker(subject, []tenure.Message{*mc.msg}) {
		// "Acme Freight is based in Gothenburg": a person is said to
		// live somewhere; what is based somewhere, named in full by
		// someone who is not talking about themselves, is an
		// organisation ("Priya is based in Berlin" is a person).
		known = true
	}
	if fb.organization(subject, rest, known) {
		mc.org = subject
		return
	}
	mc.person, mc.relation = subject, ""
	if m := calledOrgRe.FindStringSubmatch(rest); m != nil && properNames(m[2]) {
		// "Declan Ward runs a small firm called Ward Heating in
		// Salford": the firm is named, and it is where he works.
		p := factPattern{kind: anyValue, conf: tenure.ConfidenceHigh, text: "%s works at %s"}
		fb.add(FactPerson, subject, p, "works_at", m[2])
		if m[3] != "" {
			fb.add(FactOrganization, m[2], factPattern{kind: anyValue, conf: tenure.ConfidenceHigh, text: "%s is based in %s"}, "based_in", m[3])
		}
		return
	}
	conf := tenure.ConfidenceHigh
	// "he's also a governor", "she is now the treasurer": the adverb
	// says nothing of the role.
	rt := newText(isAdverbRe.ReplaceAllString(rest, "$1 "))
	if fb.leads(subject, rt) {
		return
	}
	if m := employedRe.FindTextSubmatch(rt); m != nil && properNames(strings.TrimPrefix(m[1], "the ")) {
		fb.add(FactPerson, subject, factPattern{kind: anyValue, conf: conf, text: "%s works at %s"}, "works_at", m[1])
	}
	m := isTheRe.FindTextSubmatch(rt)
	if m == nil {
		// "Ravi is a principal at Greylock": a role, where an occupation
		// is a job (below).
		if a := isAJob.FindTextSubmatch(rt); a != nil {
			if p, ok := classifyNoun(a[1]); !ok || p.attr != "job" {
				m = a
			}
		}
	}
	if j := joinedAsRe.FindTextSubmatch(rt); m == nil && j != nil {
		m = []string{j[0], j[2] + " at " + j[1]}
	}
	if m != nil {
		role, org := m[1], ""
		if loc := andPredicateRe.FindStringIndex(role); loc != nil {
			// "our CTO and used to be at Farfetch": what follows "and"
			// is said of the person, not of the role.
			role = role[:loc[0]]
		}
		if p := rolePartRe.FindStringSubmatch(role); p != nil {
			role, org = p[1], p[2]
			if loc := andLowerRe.FindStringIndex(org); loc != nil {
				// "VP of Data and signs off on the cutover"
				org = org[:loc[0]]
			}
		} else if p := rolePlaceRe.FindStringSubmatch(role); p != nil {
			role = p[1]
		}
		if v := titleOf(role); isRole(v) {
			fb.add(FactPerson, subject, factPattern{kind: titleValue, conf: conf, text: "%s is the %s"}, "role", v)
			if org != "" {
				fb.add(FactPerson, subject, factPattern{kind: anyValue, conf: conf, text: "%s works at %s"}, "works_at", org)
			} else if theirRe.MatchText(rt) {
				// "she's their head of purchasing"
				fb.employedBy(subject, fb.theirOrg(subject))
			}
		}
		return
	}
	for _, p := range relativePatterns {
		if p.attr == "name" || p.attr == "has" || p.attr == "age" {
			continue // "Sam has a point", "Sam is 3 hours ahead"
		}
		if m := p.re.FindTextSubmatch(rt); m != nil {
			fb.add(FactPerson, subject, p, p.attr, m[1])
		}
	}
	if m := isAJob.FindTextSubmatch(rt); m != nil {
		if p, ok := classifyNoun(m[1]); ok && p.attr == "job" {
			fb.add(FactPerson, subject, p, p.attr, m[1])
		}
	}
}

// andPredicateRe is "and" before a second predicate: "and used to be",
// "and lives in".
var andPredicateRe = mustPattern(`(?i)\s+and\s+(?:used|is|was|has|had|lives|works|worked|also|still|now|then|she|he|they|will|can|runs|manages)\b`)

// relationRe is a relation and nothing else: "neighbour", "business
// partner".
var relationRe = mustPattern(`(?i)^(?:` + relations + `)$`)

// andLowerRe is "and" before a word in lower case, which a name does not
// go on with.
var andLowerRe = mustPattern(`\s+and\s+\p{Ll}`)

// titleOf cuts a role to what is stated: "IT director" of "IT director
// since May".
func titleOf(raw string) string {
	if loc := valueStopRe.FindStringIndex(raw); loc != nil {
		raw = raw[:loc[0]]
	}
	return strings.Trim(tidy(raw), `"'()[] `)
}

// orgSuffixes end the names of organisations, which have no role.
var orgSuffixes = map[string]bool{"co": true, "inc": true, "ltd": true, "llc": true, "gmbh": true, "group": true,
	"corp": true, "plc": true, "labs": true, "partners": true, "agency": true, "studio": true, "studios": true,
	"trust": true, "foundation": true, "museum": true, "society": true, "association": true, "council": true,
	"university": true, "college": true, "hospital": true, "bank": true, "union": true, "institute": true}

// isOrgName reports whether a name reads as an organisation's: "Hollis &
// Co", "Acme Inc".
func isOrgName(name string) bool {
	return strings.Contains(name, "&") || orgSuffixes[lower(strings.TrimSuffix(lastWord(name), "."))]
}

// isRelative reports whether a name is a relative's ("My sister ...").
func (fb *factBuilder) isRelative(name string) bool {
	return strings.EqualFold(name, "my") || strings.HasSuffix(lower(name), "'s")
}

// isRole reports whether a value names a role or an occupation: "CEO",
// "head of data", "product lead", "IT director".
func isRole(v string) bool {
	w := words(v)
	if len(w) == 0 || len(w) > 5 || strings.HasPrefix(w[0], "favourite") || strings.HasPrefix(w[0], "favorite") {
		// "Agatha Christie is my favourite author" is a taste.
		return false
	}
	head := w[len(w)-1]
	if i := strings.Index(lower(v), " of "); i > 0 {
		head = lastWord(v[:i])
	}
	return roles[head] || roles[w[0]] || isOccupation(head) || personNoun(head)
}

// personNoun reports whether a head noun names a person by a part they
// play ("assistant", "sponsor", "landlord", "oenologist"): WordNet files
// its most frequent sense under noun.person. Relatives, identities and
// the words that name anyone at all are not roles.
func personNoun(head string) bool {
	if relationWords[head] || identities[head] || anyone[head] {
		return false
	}
	return wordnet.Class(head, wordnet.Noun) == "noun.person"
}

// anyone are person nouns that say nothing of a part played.
var anyone = set(`person, people, guy, guys, kid, kids, child, children, baby, adult, member, members, one, somebody,
	someone, anybody, individual, human, customer, customers, user, users, fan, fans, winner, loser, beginner, expert,
	idiot, genius, hero, legend, star, saint, angel, nightmare, mess, stranger, guest, guests, visitor, local, native,
	resident, neighbour, neighbor, patient, client, clients, adult, teenager, toddler, boy, girl, lady, gentleman`)

// nameIs reads "our <role> is <name>" (mine is set when "my" opens it):
// the role is the person's when it names one ("our new locum is Dr. Petra
// Lindqvist"), and an organisation after the name is their employer. A
// relative ("my partner is Alex") is read by relative.
func (fb *factBuilder) nameIs(what, name, org string, mine bool) {
	if _, after, ok := strings.Cut(what, "'s "); ok {
		// "the museum's director is Helen Ashby"
		what = after
	}
	w := words(what)
	if len(w) == 0 {
		return
	}
	head := w[len(w)-1]
	if head == "name" || relationWords[head] && (mine || head == "partner" || !roles[head] && !isOccupation(head)) {
		// "My manager is Ines" names a relative (read by relative);
		// "our night manager is Luka Babić" a role in the group.
		return
	}
	fb.mc.person = name
	for len(w) > 1 && titleMods[w[0]] {
		w = w[1:]
	}
	v := strings.Join(w, " ")
	if what == strings.ToUpper(what) {
		v = what // "GP", "CFO"
	}
	if !isRole(v) && (mine || !agentNoun(v)) {
		// "My favourite singer is Adele" is a taste, not a role; but
		// "Hallam's logistics contact is Priyesh Shah" says where they
		// work, whatever the part.
		if org != "" && !mine && (isRole(head) || groupWords[head]) {
			fb.add(FactPerson, name, factPattern{kind: anyValue, conf: tenure.ConfidenceMedium, text: "%s works at %s"}, "works_at", org)
		}
		return
	}
	fb.add(FactPerson, name, factPattern{kind: titleValue, conf: tenure.ConfidenceHigh, text: "%s is the %s"}, "role", v)
	if org != "" {
		fb.add(FactPerson, name, factPattern{kind: anyValue, conf: tenure.ConfidenceHigh, text: "%s works at %s"}, "works_at", org)
	}
}

// titleMods qualify a role without being part of it: "our new locum".
var titleMods = map[string]bool{"new": true, "current": true, "acting": true, "interim": true, "old": true}

// leads adds the role a clause says a person has by what they do: "heads
// the surgical team". The role is the verb and what it governs, up to a
// place ("runs the seed library at the community centre").
func (fb *factBuilder) leads(subject string, rest *text) bool {
	m := leadsRe.FindTextSubmatch(rest)
	if m == nil {
		return false
	}
	obj := m[2]
	if loc := employerCutRe.FindStringIndex(obj); loc != nil {
		obj = obj[:loc[0]]
	}
	if loc := valueStopRe.FindStringIndex(obj); loc != nil {
		obj = obj[:loc[0]]
	}
	if !concreteObject(obj) || len(words(obj)) > 5 {
		return false
	}
	fb.add(FactPerson, subject, factPattern{kind: titleValue, conf: tenure.ConfidenceMedium, text: "%s %s", prefix: m[1]}, "role", tidy(obj))
	return true
}

// orgKinds are the nouns that say a name is an organisation's.
const orgKinds = `firm|company|business|outfit|startup|start-up|agency|charity|shop|practice|studio|group|lab|manufacturer|supplier|distributor|consultancy|co-op|co-operative|cooperative|collective|brewery|bakery|nonprofit|non-profit|organi[sz]ation|club|society|association|foundation|chain|retailer|maker|publisher|vendor|provider|union|bank|clinic|surgery|hospital|school|college|university|museum|hotel|restaurant|caf[eé]|pub|store|garage|factory|farm|gym|church|library|cent(?:re|er)|theatre|theater|council|trust|institute|team|fund`

// Organisation facts said without the words the patterns above need: what
// kind of organisation it is ("a family firm out of Bilbao"), its size
// without a verb ("about 30 people", "with around 40 staff"), and how long
// it has been going ("since 1998").
var (
	orgKindRe  = mustPattern(`(?i)\b(?:is|are|was)\s+(?:an?|the|one)\s+(?:[\p{L}\d-]+\s+){0,3}?(?:` + orgKinds + `)\b`)
	orgOutOfRe = mustPattern(`(?i)\b(?:out\s+of|(?:` + orgKinds + `)\s+(?:in|from|based\s+in))\s+((?-i:[A-Z][\p{L}-]+(?:\s+[A-Z][\p{L}-]+)?))`)
	orgSizeRe  = mustPattern(`(?i)\b(?:(?:with|about|around|roughly|over|nearly|almost|some|team\s+of|of)\s+(?:about\s+|around\s+|roughly\s+|over\s+|nearly\s+|almost\s+|some\s+)?(\d[\d,]*|` + numberWords + `)\s+(?:employees|people|staff|workers|engineers)|(\d[\d,]*)-(?:person|people|strong|staff))\b`)
	orgSinceRe = mustPattern(`(?i)\b(?:been\s+(?:around|going|trading|operating|open|running|in\s+business|[a-z]+ing)\s+since|(?:opened|launched|set\s+up)\s+(?:back\s+)?in)\s+(\d{4})\b`)
)

// calledOrgRe is an organisation a person runs or works for, named after
// its kind: "runs a small firm called Ward Heating in Salford".
var calledOrgRe = mustPattern(`(?i)^(?:now\s+|also\s+)?(runs|owns|has|started|founded|set\s+up|works\s+(?:at|for))\s+(?:an?|the|his|her|their)\s+(?:[\p{L}-]+\s+){0,2}?(?:` + orgKinds + `)\s+(?:called|named)\s+((?-i:[A-Z][\p{L}'-]*(?:\s+(?:&\s+)?[A-Z][\p{L}'-]*){0,2}))(?:\s+(?:in|out\s+of)\s+((?-i:[A-Z][\p{L}-]+(?:\s+[A-Z][\p{L}-]+)?)))?`)

// tradingRe is a going concern only a business is: "trading", "in
// business".
var tradingRe = mustPattern(`(?i)\b(?:trading|in\s+business)\b`)

// orgInRe is where a kind of thing is: "is a family-run kitchen in Gaia",
// said of an organisation.
var orgInRe = mustPattern(`(?i)^(?:is|are|was)\s+(?:an?|the|one)\s+(?:[\p{L}\d-]+\s+){0,3}?[\p{L}-]+\s+in\s+((?-i:[A-Z][\p{L}-]+(?:\s+[A-Z][\p{L}-]+)?))`)

// staffRe is a size only an organisation has: staff, employees.
var staffRe = mustPattern(`(?i)\b(?:employees|staff|workers)\b`)

// agentNoun reports whether a word names a person by what they do, by its
// form ("accompanist", "installer", "translator", "librarian"): read as a
// role only where the clause says it is someone's ("our accompanist is
// Gareth Lloyd", "the installer, Sunita Rao,").
func agentNoun(v string) bool {
	w := words(v)
	if len(w) == 0 || len(w) > 3 {
		return false
	}
	head := w[len(w)-1]
	if len(head) < 6 || notAgents[head] || relationWords[head] {
		return false
	}
	for _, suf := range []string{"ist", "er", "or", "ian"} {
		if strings.HasSuffix(head, suf) {
			return true
		}
	}
	return false
}

// notAgents end like agent nouns and name things.
var notAgents = set(`number, water, paper, order, summer, winter, letter, corner, center, centre, computer,
	answer, matter, dinner, quarter, chapter, cover, error, floor, door, colour, color, flavour, flavor,
	mirror, monitor, poster, sticker, folder, binder, charger, heater, cooler, freezer, trailer, container,
	weather, feather, leather, shoulder, finger, border, harbor, harbour, honor, honour, favour, favor,
	labour, labor, meteor, character, member, player, teenager, toddler, stranger, customer, user, interior, exterior, register, calendar, budget, timer, router, server, browser,
	printer, scanner, speaker, trainer, sweater, powder, ladder, hammer, banner, barrier, tractor, motor, sensor`)

// organization reads an organisation's facts from what a clause says of
// subject, and reports whether it found any. "Based in" alone may be said
// of a person; with another organisation fact, as "headquartered", said of
// a name that reads as an organisation's, or after the clause says what
// kind of organisation it is, it is said of an organisation. known is set
// when subject is known to be one.
func (fb *factBuilder) organization(subject, rest string, known bool) bool {
	org := known || isOrgName(subject) || orgKindRe.MatchString(rest)
	var facts, weak [][3]string // attribute, value, text
	if m := orgFoundedRe.FindStringSubmatch(rest); m != nil {
		facts = append(facts, [3]string{"founded", m[1], "%s was founded in %s"})
	} else if m := orgSinceRe.FindStringSubmatch(rest); m != nil {
		f := [3]string{"founded", m[1], "%s was founded in %s"}
		if tradingRe.MatchString(m[0]) {
			// "been trading since 1962": only a business trades.
			facts = append(facts, f)
		} else {
			weak = append(weak, f)
		}
	}
	if m := orgEmployeesRe.FindStringSubmatch(rest); m != nil {
		facts = append(facts, [3]string{"employees", strings.ReplaceAll(m[1], ",", ""), "%s has %s employees"})
	} else if m := orgSizeRe.FindStringSubmatch(rest); m != nil {
		f := [3]string{"employees", strings.ReplaceAll(m[1]+m[2], ",", ""), "%s has %s employees"}
		if staffRe.MatchString(m[0]) {
			// "with about 30 staff": only an organisation has staff.
			facts = append(facts, f)
		} else {
			weak = append(weak, f)
		}
	}
	if m := orgHQRe.FindStringSubmatch(rest); m != nil {
		facts = append(facts, [3]string{"based_in", m[1], "%s is based in %s"})
	} else if m := orgPlaceRe.FindStringSubmatch(rest); m != nil {
		if lower(m[1]) == "headquartered" {
			facts = append(facts, [3]string{"based_in", m[2], "%s is based in %s"})
		} else {
			weak = append(weak, [3]string{"based_in", m[2], "%s is based in %s"})
		}
	} else if m := orgSitesRe.FindStringSubmatch(rest); m != nil {
		facts = append(facts, [3]string{"based_in", m[1], "%s is based in %s"})
	} else if m := orgOutOfRe.FindStringSubmatch(rest); m != nil {
		weak = append(weak, [3]string{"based_in", m[1], "%s is based in %s"})
	} else if m := orgInRe.FindStringSubmatch(rest); m != nil {
		weak = append(weak, [3]string{"based_in", m[1], "%s is based in %s"})
	} else if m := placeKindRe.FindStringSubmatch(rest); m != nil && placeName(m[1]) {
		// "a Lisbon fund": the kind says it is an organisation, the
		// place where it is.
		facts = append(facts, [3]string{"based_in", m[1], "%s is based in %s"})
	}
	if org || len(facts) > 0 {
		facts = append(facts, weak...)
	}
	for _, f := range facts {
		fb.add(FactOrganization, subject, factPattern{kind: anyValue, conf: tenure.ConfidenceHigh, text: f[2]}, f[0], f[1])
	}
	return len(facts) > 0
}
