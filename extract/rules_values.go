package extract

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tenure-dev/tenure"
)

// valueStopRe ends a fact's value where the statement moves on: to a time
// ("since", "next week"), a reason, a relative clause or a hedge.
var valueStopRe = mustPattern(`(?i)\s+(?:since|for|from|on|with|because|as|when|while|until|near|who|which|that|where|now|too|though|anymore|any\s+more|these\s+days|nowadays|at\s+the\s+moment|right\s+now|lol|haha|by\s+training|myself|honestly|to\s+be\s+honest|a\s+lot|so\s+much|mostly|every|each|last|next|this|in\s+(?:the\s+)?(?:january|february|march|april|may|june|july|august|september|october|november|december|summer|winter|spring|fall|autumn|morning|evening)|\w+\s+(?:years?|months?|weeks?|days?)\s+ago|ago|tomorrow|yesterday|today|tonight|someday|one\s+day|soon|later|again|first|instead|after|before|by\s+the\s+way|btw|if|unfortunately|sadly|luckily|fortunately|apparently|obviously|basically|actually|really|definitely|probably|anyway)\b`)

// andMoreRe is "and" before a word in lowercase: what follows a place is
// another predicate, not more of the place.
var andMoreRe = mustPattern(`\s+and\s+[a-z\d]`)

// employerCutRe ends an occupation where its employer or place starts.
var employerCutRe = mustPattern(`(?i)\s+(?:at|in|for)\s+`)

// badValueStarts are words a stated value cannot start with: pronouns and
// words that show the pattern caught something other than a value.
var badValueStarts = map[string]bool{"it": true, "it's": true, "that": true, "that's": true, "this": true,
	"these": true, "those": true, "you": true, "him": true, "her": true, "them": true, "us": true, "me": true,
	"there": true, "here": true, "how": true, "what": true, "what's": true, "when": true, "where": true,
	"why": true, "which": true, "who": true, "to": true, "your": true, "his": true, "their": true, "our": true,
	"its": true, "all": true, "everything": true, "something": true, "anything": true, "nothing": true,
	"one": true, "being": true, "so": true, "too": true, "very": true, "doing": true, "going": true,
	"myself": true, "yourself": true, "if": true, "about": true, "some": true, "any": true, "no": true,
	"not": true, "such": true, "out": true, "up": true, "back": true, "home": true, "the way": true,
	"bit": true, "lot": true, "little": true, "way": true, "much": true, "more": true, "same": true,
	"night": true, "nights": true, "weekends": true, "times": true, "least": true, "work": true}

// maxValueWords bounds a value: a longer one is a clause the patterns
// misread. Plans are verb phrases and run longer.
const (
	maxValueWords = 6
	maxPlanWords  = 10
)

// cleanValue cuts raw to the stated value and reports whether it looks
// like the kind of value expected.
func cleanValue(raw string, kind valueKind) (string, bool) {
	v := raw
	if loc := valueStopRe.FindStringIndex(v); loc != nil {
		v = v[:loc[0]]
	}
	if kind == jobValue || kind == roleValue {
		if loc := employerCutRe.FindStringIndex(v); loc != nil {
			v = v[:loc[0]]
		}
		v = strings.TrimPrefix(strings.TrimPrefix(v, "a "), "an ")
	}
	v = strings.Trim(tidy(v), `"'()[] `)
	w := words(v)
	limit := maxValueWords
	if kind == ingValue || kind == lifeValue {
		limit = maxPlanWords
	}
	if v == "" || len(w) == 0 || len(strings.Fields(v)) > limit || badValueStarts[w[0]] && kind != titleValue {
		return "", false
	}
	switch kind {
	case properValue:
		if loc := andMoreRe.FindStringIndex(v); loc != nil {
			// "Otley and has about 15 members": the place ends where
			// the next predicate starts.
			v = v[:loc[0]]
		}
		first := strings.TrimPrefix(v, "the ")
		r, _ := utf8.DecodeRuneInString(first)
		return v, unicode.IsUpper(r)
	case jobValue:
		return v, isOccupation(w[len(w)-1])
	case hasValue:
		return v, quantities[w[0]] && hasNoun(w[1:])
	case foodValue:
		return v, foods[strings.Join(w, " ")]
	case ingValue:
		return v, strings.HasSuffix(w[0], "ing") && len(w[0]) > 4
	case lifeValue:
		return v, lifeVerbs[w[0]]
	case ageValue:
		return v, true
	case teachValue:
		return w[0] + " teacher", len(w) == 1 && !stopwords[w[0]]
	case likedKind:
		return v, !dayParts[w[0]]
	case nameValue:
		r, _ := utf8.DecodeRuneInString(v)
		return v, unicode.IsUpper(r) && !nationalities[w[0]] && !calendarWords[w[0]]
	}
	return v, true
}

// classifyNoun says what "I'm a X" states, from X's head noun: a job, an
// identity or a diet. Anything else ("I'm a bit tired", "I'm a mess") is
// not kept.
func classifyNoun(np string) (factPattern, bool) {
	v, ok := cleanValue(np, roleValue)
	if !ok {
		return factPattern{}, false
	}
	w := words(v)
	head := w[len(w)-1]
	p := factPattern{kind: roleValue, conf: tenure.ConfidenceHigh}
	switch {
	case isOccupation(head):
		p.attr, p.text = "job", "%s works as %s"
	case identities[head]:
		p.attr, p.text = "identity", "%s is %s"
	case diets[head]:
		p.attr, p.text = "diet", "%s is %s"
	default:
		return factPattern{}, false
	}
	return p, true
}

func set(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Split(s, ",") {
		m[strings.TrimSpace(w)] = true
	}
	return m
}

var (
	occupations = set(`engineer, developer, programmer, designer, nurse, doctor, teacher, counselor,
		counsellor, therapist, lawyer, accountant, manager, student, researcher, scientist, artist, writer,
		journalist, chef, cook, baker, barista, pilot, driver, firefighter, officer, architect, consultant,
		analyst, librarian, photographer, musician, painter, dentist, pharmacist, vet, veterinarian,
		electrician, plumber, carpenter, mechanic, farmer, professor, lecturer, tutor, coach, trainer,
		freelancer, entrepreneur, founder, ceo, cto, intern, paramedic, surgeon, psychologist, worker,
		editor, translator, cashier, waiter, waitress, bartender, director, administrator, technician,
		salesperson, recruiter, marketer, economist, physician, midwife, caregiver, volunteer, clerk,
		sommelier, paralegal, dietitian, nutritionist, optometrist, receptionist, secretary, attorney, banker,
		broker, realtor, agent, auditor, investor, executive, supervisor, coordinator, specialist, hairdresser,
		barber, tailor, butcher, florist, gardener, housekeeper, nanny, babysitter, actor, actress, singer,
		dancer, athlete, soldier, sailor, lifeguard, detective, judge, priest, pastor, rabbi, imam, dean,
		surveyor, welder, programmer, tester, strategist, planner, instructor, professor, radiologist,
		facilitator, moderator, organizer, organiser, caterer, photographer, contractor, vendor, supplier,
		farrier, solicitor, barrister, locum, physio, physiotherapist, gp, registrar, notary, curator, ranger,
		steward, chaplain, optician, osteopath, chiropractor, beekeeper, blacksmith, brewer, roaster, printer,
		stylist, decorator, glazier, roofer, tiler, builder, joiner, locksmith, courier, porter, warden,
		fishmonger, ironmonger, cheesemonger, greengrocer, grocer, upholsterer, caretaker, janitor`)
	// roles are job titles within an organisation: "the CEO", "our head
	// of data", "the IT director".
	roles = set(`ceo, cto, cfo, coo, cmo, cpo, ciso, cio, vp, svp, evp, president, chairman, chairwoman,
		chair, founder, cofounder, co-founder, owner, head, director, manager, lead, chief, officer, admin,
		administrator, partner, principal, treasurer, coordinator, supervisor, captain, secretary, clerk,
		convenor, trustee, governor, deputy, chairperson, producer, editor, registrar`)
	// nationalities are capitalised but are not names.
	nationalities = set(`italian, french, german, spanish, british, english, american, canadian, mexican,
		chinese, japanese, korean, indian, irish, scottish, welsh, swedish, dutch, polish, russian,
		brazilian, australian, portuguese, greek, turkish, jewish, muslim, christian, catholic, hindu,
		buddhist, african, european, asian, latino, latina, swiss, austrian, danish, norwegian, finnish`)
	identities = set(`woman, man, guy, girl, mom, mother, dad, father, parent, introvert, extrovert,
		immigrant, veteran, christian, muslim, jew, atheist, lesbian, twin, grandmother, grandfather, widow, widower`)
	diets      = set(`vegan, vegetarian, pescatarian`)
	quantities = set(`a, an, one, two, three, four, five, six, seven, eight, nine, ten, eleven, twelve,
		0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12`)
	hasNouns = set(`kid, kids, child, children, son, sons, daughter, daughters, dog, dogs, cat, cats, puppy,
		puppies, kitten, kittens, pet, pets, bird, birds, parrot, fish, hamster, rabbit, rabbits, horse, horses,
		sibling, siblings, sister, sisters, brother, brothers, grandkid, grandkids, grandchild, grandchildren,
		twins, baby, house, car, boyfriend, girlfriend, husband, wife, partner, stepson, stepdaughter`)
	// dayParts are times of day, which "a morning person" prefers rather
	// than likes.
	dayParts = set(`morning, mornings, night, nights, evening, evenings, afternoon, early, late, day, people`)
	foods    = set(`meat, red meat, pork, beef, fish, dairy, gluten, eggs, seafood, sugar, chicken,
		animal products, shellfish, nuts, alcohol, caffeine, coffee, milk`)
)

// isOccupation reports whether a head noun names an occupation.
func isOccupation(head string) bool {
	return occupations[head] || occupations[strings.TrimSuffix(head, "s")]
}

// hasNoun reports whether one of the first words after a quantity is a
// thing one has: "three kids", "a big old dog".
func hasNoun(w []string) bool {
	for i := 0; i < len(w) && i < 3; i++ {
		if hasNouns[w[i]] {
			return true
		}
	}
	return false
}
