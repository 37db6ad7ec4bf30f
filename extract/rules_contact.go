package extract

import (
	"regexp"
	"strings"

	"github.com/tenure-dev/tenure"
)

// How a person is reached and how they want to be: what a support
// conversation states once and every later one needs ("my email changed,
// it's now maria@example.com", "please don't call me, email only").

var (
	// contactDetailRe is the speaker's own email, number or address, said
	// as it is or as it has become.
	contactDetailRe = mustPattern(`(?i)^my\s+(new\s+|current\s+|updated\s+)?(?:(?:work|personal|home|private)\s+)?` +
		`(e-?mail(?:\s+address)?|(?:phone|mobile|cell)(?:\s+number)?|number|(?:postal\s+|home\s+|mailing\s+|delivery\s+)?address)` +
		`(?:\s+is|'s|\s+(?:has\s+)?changed[,;:]?\s+(?:it's|it\s+is|the\s+new\s+one\s+is))\s+(now\s+)?(.+)$`)
	emailValueRe   = regexp.MustCompile(`^[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}`)
	phoneValueRe   = regexp.MustCompile(`^\+?\(?\d[\d ().-]{5,}\d`)
	addressValueRe = regexp.MustCompile(`^\d+[A-Za-z]?\s+[A-Z][^;!?]*`)
	addressEndRe   = regexp.MustCompile(`(?i),?\s+(?:since|from|as\s+of|starting|until|if|but|and\s+(?:my|the|it))\b`)

	// noContactRe is a way of being reached the speaker refuses: "please
	// don't call me", "never text us at work". The rest says when or
	// where, or what to do instead.
	noContactRe = mustPattern(`(?i)^(?:please\s+)?(?:don't|do\s+not|never)\s+(?:ever\s+)?(call|phone|ring|text|email|e-mail|message|contact|visit)\s+(?:me|us)\b(.*)$`)
	// onlyContactRe is the one way the speaker accepts: "only email me",
	// "contact me by email only".
	onlyContactRe = mustPattern(`(?i)^(?:please\s+)?(?:(?:only|just)\s+(email|e-mail|text|call|phone|message|write\s+to)\s+(?:me|us)\b|(?:contact|reach)\s+(?:me|us)\s+(?:only\s+)?(?:by|via|on|through)\s+(email|e-mail|text|phone|post|whatsapp|sms)(?:\s+only)?\b)`)
	// ratherContactRe is a way the speaker prefers to another: "I'd
	// rather you text me than call".
	ratherContactRe = mustPattern(`(?i)^(?:i'd|i\s+would)\s+(?:rather|prefer)\s+(?:you\s+|it\s+if\s+you\s+)?(text|email|e-mail|call|phone|message)(?:ed)?\s+(?:me|us)\s+(?:than|rather\s+than|instead\s+of)\s+(call|phone|ring|email|e-mail|text|message)`)
	// onlyWayRe is the way left, said after a refusal: ", email only".
	onlyWayRe = mustPattern(`(?i)^[,;:]?\s*(?:(?:and\s+)?(?:only|just)\s+(?:by\s+|via\s+)?(email|e-mail|text|post|whatsapp|sms|letters?)|(?:by\s+|via\s+)?(email|e-mail|text|post|whatsapp|sms|letters?)\s+only)\b`)
)

// contactNouns name what a way of contact sends, by its verb as wayVerb
// gives it.
var contactNouns = map[string]string{"call": "calls", "text": "texts", "email": "emails", "message": "messages",
	"contact": "contact", "visit": "visits"}

// contactFacts reads the speaker's contact details and the way they want
// to be reached, as facts about them (profile facts cross threads: the
// next conversation knows them too).
func (r *Rules) contactFacts(mc *messageContext, text string) []Fact {
	if mc.subject == "" {
		return nil
	}
	if m := contactDetailRe.FindStringSubmatch(text); m != nil {
		attr, what := contactAttribute(m[2])
		v := contactValue(attr, m[4])
		if v == "" {
			return nil
		}
		change := m[1] != "" || m[3] != "" || strings.Contains(lower(m[0]), "changed")
		return []Fact{r.contactFact(mc, text, attr, v, mc.subject+"'s "+what+" is "+v, change)}
	}
	if at, recurring, ok := availability(mc, text); ok && recurring {
		return []Fact{r.contactFact(mc, text, "availability", strings.TrimPrefix(at, mc.subject+" is "), at, false)}
	}
	if p, ok := readContactPref(text); ok {
		v := p.value()
		return []Fact{r.contactFact(mc, text, "contact_preference", v, mc.subject+" wants "+v, false)}
	}
	return nil
}

func (r *Rules) contactFact(mc *messageContext, clause, attr, v, text string, change bool) Fact {
	f := Fact{Kind: FactProfile, Subject: mc.subject, Attribute: attr, Value: v, Text: text,
		Refs: []string{mc.msg.ID}, Confidence: tenure.ConfidenceHigh}
	if d := r.changeDate(clause, mc.msg.CreatedAt, change); d != nil {
		t := d.Date
		f.ValidFrom, f.ValidPrecision = &t, tenure.Precision(d.Granularity)
	}
	return f
}

// contactAttribute is the attribute a detail is kept under, and how a
// fact's text names it.
func contactAttribute(noun string) (attr, what string) {
	n := lower(noun)
	switch {
	case strings.HasPrefix(n, "email") || strings.HasPrefix(n, "e-mail"):
		return "email", "email"
	case strings.Contains(n, "address"):
		return "address", "address"
	}
	return "phone", "phone number"
}

// contactValue is the detail as stated, or "" when what follows is not
// one ("my email is the same", "my number's on the form").
func contactValue(attr, raw string) string {
	raw = strings.TrimSpace(raw)
	var v string
	switch attr {
	case "email":
		v = emailValueRe.FindString(raw)
	case "phone":
		if v = phoneValueRe.FindString(raw); countDigits(v) < 7 {
			return ""
		}
	case "address":
		v = addressValueRe.FindString(raw)
		if loc := addressEndRe.FindStringIndex(v); loc != nil {
			// "12 Rose Lane since March": the address ends where its
			// date starts.
			v = v[:loc[0]]
		}
		if len(strings.Fields(v)) > 12 {
			return ""
		}
	}
	return strings.TrimRight(strings.TrimSpace(v), ".,")
}

func countDigits(s string) int {
	n := 0
	for _, c := range s {
		if c >= '0' && c <= '9' {
			n++
		}
	}
	return n
}

// contactPref is a way of contact the speaker refuses (the verb, and
// when the refusal holds), the one way they limit it to, or the way they
// would rather have instead of the refused one.
type contactPref struct{ refused, when, only, rather string }

// readContactPref reads a refusal or a limit of contact in a sentence.
func readContactPref(text string) (contactPref, bool) {
	if m := noContactRe.FindStringSubmatch(text); m != nil {
		p := contactPref{refused: wayVerb(m[1])}
		rest := m[2]
		if w := onlyWayRe.FindStringSubmatch(rest); w != nil {
			p.only = wayName(w[1] + w[2])
		} else if when := strings.TrimSpace(strings.TrimRight(clauseAfter(rest), ".!")); when != "" && len(strings.Fields(when)) <= 5 {
			// "never call me at work": when the refusal holds.
			p.when = when
		}
		return p, true
	}
	if m := ratherContactRe.FindStringSubmatch(text); m != nil {
		p := contactPref{rather: wayVerb(m[1]), refused: wayVerb(m[2])}
		return p, p.rather != p.refused
	}
	if m := onlyContactRe.FindStringSubmatch(text); m != nil {
		way := m[1] + m[2]
		if strings.HasPrefix(lower(way), "write") {
			way = "letters"
		}
		return contactPref{only: wayName(way)}, true
	}
	return contactPref{}, false
}

// value is the preference as a fact's value: "email only, no calls".
func (p contactPref) value() string {
	var parts []string
	if p.only != "" {
		parts = append(parts, p.only+" only")
	}
	switch {
	case p.rather != "":
		parts = append(parts, contactNouns[p.rather]+" rather than "+contactNouns[p.refused])
	case p.refused != "":
		parts = append(parts, strings.TrimSpace("no "+contactNouns[p.refused]+" "+p.when))
	}
	return strings.Join(parts, ", ")
}

// rule is the preference as a rule about whom: "Do not call Maria; email
// only", "Contact Maria by email only".
func (p contactPref) rule(whom string) string {
	switch {
	case p.rather != "":
		return capitalize(p.rather) + " " + whom + " rather than " + p.refused
	case p.refused == "":
		return "Contact " + whom + " by " + p.only + " only"
	}
	text := strings.TrimSpace("Do not " + p.refused + " " + whom + " " + p.when)
	if p.only != "" {
		text += "; " + p.only + " only"
	}
	return text
}

// wayVerb is a verb of contact as a rule says it.
func wayVerb(v string) string {
	switch v = lower(v); v {
	case "e-mail":
		return "email"
	case "phone", "ring":
		return "call"
	}
	return v
}

// wayName names a way of contact as a preference says it.
func wayName(w string) string {
	switch w = lower(w); w {
	case "e-mail":
		return "email"
	case "call", "phone":
		return "phone"
	case "letter":
		return "letters"
	}
	return w
}

// contactRule reads the same refusal or limit as a rule of the thread,
// with "me" made the speaker.
func contactRule(mc *messageContext, t string) (found, bool) {
	if !mc.human || mc.subject == "" {
		return found{}, false
	}
	p, ok := readContactPref(t)
	if !ok {
		return found{}, false
	}
	return found{typ: tenure.StateConstraint, text: p.rule(mc.subject), conf: tenure.ConfidenceHigh}, true
}

var (
	// secretTellRe keeps something from someone: "don't tell Julia about
	// the cake", "nobody tell the kids about the puppy".
	secretTellRe = mustPattern(`(?i)(?:^|,\s+|\band\s+)(?:please\s+)?(?:don't|do\s+not|never|nobody|no\s+one|no-one)\s+(?:(?:should|can|must|may)\s+)?(?:tell|warn)\s+(\S+(?:\s+\S+)?)\s+about\s+(\S.*)$`)
	// secretMentionRe is the same said of the thing: "don't mention the
	// party to Julia".
	secretMentionRe = mustPattern(`(?i)(?:^|,\s+|\band\s+)(?:please\s+)?(?:don't|do\s+not|never|nobody|no\s+one|no-one)\s+(?:(?:should|can|must|may)\s+)?(?:mention|say\s+anything\s+about|breathe\s+a\s+word\s+about)\s+(\S.*?)\s+to\s+(\S+(?:\s+\S+)?)$`)
)

// secretRule reads something kept from someone as a rule: "Do not tell
// Julia about the cake". Whom it is kept from is named (a name, "my
// mum", "the kids", "anyone"); "don't tell me about it" keeps nothing, and an
// assistant's advice is no rule.
func secretRule(mc *messageContext, t string) (found, bool) {
	if !mc.human {
		return found{}, false
	}
	t = strings.TrimRight(t, ".!")
	var whom, what string
	if m := secretTellRe.FindStringSubmatch(t); m != nil {
		whom, what = m[1], clauseAfter(m[2])
	} else if m := secretMentionRe.FindStringSubmatch(t); m != nil {
		whom, what = m[2], clauseAfter(m[1])
	} else {
		return found{}, false
	}
	whom = strings.TrimRight(whom, ",;")
	if !keptFrom(whom) || !hasContentWord(what) || len(strings.Fields(what)) > 8 {
		return found{}, false
	}
	return found{typ: tenure.StateConstraint, text: "Do not tell " + whom + " about " + what, conf: tenure.ConfidenceHigh}, true
}

// keptFrom reports whether a secret's "whom" names someone: a name, a
// relative or a group ("my mum", "the kids"), or anyone at all.
func keptFrom(whom string) bool {
	w := strings.Fields(whom)
	switch {
	case len(w) == 1 && (lower(w[0]) == "anyone" || lower(w[0]) == "anybody"):
		return true
	case len(w) == 1:
		return isProperName(w[0]) && !objectPronouns[lower(w[0])] && lower(w[0]) != "it"
	case lower(w[0]) == "my" || lower(w[0]) == "our" || lower(w[0]) == "the":
		return relationWords[strings.TrimSuffix(lower(w[1]), "s")] || relationWords[lower(w[1])] || groupNouns[lower(w[1])]
	}
	return properNames(whom)
}

// groupNouns are groups a secret may be kept from.
var groupNouns = set(`kids, children, team, others, guests, staff, family, boss, client, clients, customer, customers, press`)

var (
	// availabilityRe is when the speaker can or cannot be met or
	// reached: "I'm only available after 3 pm on weekdays", "I'm not
	// free on Fridays".
	availabilityRe = mustPattern(`(?i)^i(?:'m|\s+am)\s+((?:usually\s+|generally\s+)?only|not|never)\s+(available|free|around|reachable|contactable|in\s+the\s+office)\s+(\S.*)$`)
	// whenWordsRe names a time of the day or week.
	whenWordsRe = mustPattern(`(?i)\b(?:weekdays?|weekends?|(?:mon|tues|wednes|thurs|fri|satur|sun)days|mornings?|afternoons?|evenings?|nights?|lunchtimes?|working\s+hours|office\s+hours)\b`)
	// recurringRe is a time that comes back, which a profile keeps; a
	// date does not.
	recurringRe = mustPattern(`(?i)\b(?:weekdays|weekends|(?:mon|tues|wednes|thurs|fri|satur|sun)days|mornings|afternoons|evenings|nights|working\s+hours|office\s+hours|(?:before|after|between)\s+\d{1,2}(?::\d{2})?\s?(?:am|pm)?)\b`)
)

// availability is when the speaker says they can or cannot be reached,
// as a statement about them ("Maria is only available after 3 pm on
// weekdays"), and whether it recurs, so that their profile keeps it.
func availability(mc *messageContext, t string) (text string, recurring, ok bool) {
	if !mc.human || mc.subject == "" {
		return "", false, false
	}
	m := availabilityRe.FindStringSubmatch(strings.TrimRight(t, ".!"))
	if m == nil || !dateRe.MatchString(m[3]) && !whenWordsRe.MatchString(m[3]) {
		return "", false, false
	}
	rest := clauseAfter(m[3])
	if rest == "" {
		return "", false, false
	}
	text = mc.subject + " is " + lower(m[1]) + " " + lower(m[2]) + " " + rest
	return text, recurringRe.MatchString(rest) && !singleDayRe.MatchString(rest), true
}

// singleDayRe is one day named: "on Friday", "tomorrow", "next week".
var singleDayRe = mustPattern(`(?i)\b(?:today|tomorrow|tonight|next|this|(?:mon|tues|wednes|thurs|fri|satur|sun)day\b|\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec))`)

// availabilityRule is the speaker's availability as a rule of the thread.
func availabilityRule(mc *messageContext, t string) (found, bool) {
	text, _, ok := availability(mc, t)
	if !ok {
		return found{}, false
	}
	return found{typ: tenure.StateConstraint, text: text, conf: tenure.ConfidenceHigh}, true
}
