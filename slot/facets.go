package slot

import (
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/tenure-dev/tenure/wordnet"
)

// The facets of an item: dates, times of day, quantities with their
// units, rates and bounds, and versions.

// facetAt recognises a facet starting at token i and returns how many
// tokens it took, or 0.
func (s *scanner) facetAt(i int) int {
	if s.toks[i].used {
		return 0
	}
	for _, f := range []func(int) (Facet, int){s.dateAt, s.timeAt, s.relativeDateAt, s.quantityAt} {
		if fc, n := f(i); n > 0 {
			if fc.Kind == Version {
				fc.at = i - 1
			} else {
				fc.at = i
			}
			s.a.Facets = append(s.a.Facets, fc)
			for k := i; k < i+n; k++ {
				s.toks[k].used = true
			}
			return n
		}
	}
	return 0
}

// dayOfMonth reads "12", "1st", "14th" as a day of the month.
func dayOfMonth(w string) (int, bool) {
	w = strings.TrimRight(w, "stndrh")
	d, err := strconv.Atoi(w)
	return d, err == nil && d >= 1 && d <= 31
}

func year(w string) (int, bool) {
	y, err := strconv.Atoi(w)
	return y, err == nil && len(w) == 4 && y >= 1900 && y <= 2200
}

// dateAt reads a calendar date: "12 May 2023", "Saturday 12 August", "March
// 14", "1st of June", "June 2023", "Friday March 14".
func (s *scanner) dateAt(i int) (Facet, int) {
	j := i
	if _, ok := weekdays[s.low(j)]; ok {
		if s.month(j+1) != 0 {
			j++
		} else if _, ok := dayOfMonth(s.low(j + 1)); ok {
			j++
		}
	}
	var d, m, n int
	if day, ok := dayOfMonth(s.low(j)); ok {
		k := j + 1
		if s.low(k) == "of" {
			k++
		}
		if mo := s.month(k); mo != 0 {
			d, m, n = day, mo, k+1-i
		}
	} else if mo := s.month(j); mo != 0 {
		if day, ok := dayOfMonth(s.low(j + 1)); ok {
			d, m, n = day, mo, j+2-i
		} else if yr, ok := year(s.low(j + 1)); ok {
			return Facet{Kind: Date, Key: "date", Value: strconv.Itoa(yr) + "-" + two(mo), Text: s.text(i, j+2)}, j + 2 - i
		}
	}
	if n == 0 {
		return Facet{}, 0
	}
	v := two(m) + "-" + two(d)
	if yr, ok := year(s.low(i + n)); ok {
		v = strconv.Itoa(yr) + "-" + v
		n++
	}
	return Facet{Kind: Date, Key: "date", Value: v, Text: s.text(i, i+n)}, n
}

// month is the month token k names, or 0. "may" in lower case is the
// modal unless a year follows it: "nobody under 12 may climb" names no
// date.
func (s *scanner) month(k int) int {
	mo := months[s.low(k)]
	if mo == 5 && k < len(s.toks) && s.toks[k].raw == "may" {
		if _, ok := year(s.low(k + 1)); !ok {
			return 0
		}
	}
	return mo
}

func two(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

// text is tokens [i, j) as written.
func (s *scanner) text(i, j int) string {
	var b strings.Builder
	for k := i; k < j && k < len(s.toks); k++ {
		if k > i {
			b.WriteByte(' ')
		}
		b.WriteString(s.toks[k].raw)
	}
	return b.String()
}

// timeAt reads a time of day: "7:40", "18:05", "9 am", "5 pm", "noon".
func (s *scanner) timeAt(i int) (Facet, int) {
	w := s.low(i)
	switch w {
	case "noon", "midday":
		return Facet{Kind: Time, Key: "time", Value: "12:00", Text: s.toks[i].raw}, 1
	case "midnight":
		return Facet{Kind: Time, Key: "time", Value: "00:00", Text: s.toks[i].raw}, 1
	}
	h, m, n := -1, 0, 1
	if hh, mm, ok := strings.Cut(w, ":"); ok {
		hv, err1 := strconv.Atoi(hh)
		mv, err2 := strconv.Atoi(mm)
		if err1 != nil || err2 != nil || hv > 24 || mv > 59 || len(mm) != 2 {
			return Facet{}, 0
		}
		h, m = hv, mv
	}
	ampm := s.low(i + 1)
	if ampm == "am" || ampm == "pm" {
		if h < 0 {
			hv, err := strconv.Atoi(w)
			if err != nil || hv < 1 || hv > 12 {
				return Facet{}, 0
			}
			h = hv
		}
		if ampm == "pm" && h < 12 {
			h += 12
		} else if ampm == "am" && h == 12 {
			h = 0
		}
		n = 2
	}
	if h < 0 {
		return Facet{}, 0
	}
	return Facet{Kind: Time, Key: "time", Value: two(h) + ":" + two(m), Text: s.text(i, i+n)}, n
}

// number reads a number: digits with thousands separators and a decimal
// point, an optional currency sign and k or m suffix, or a number word.
func number(w string) (v float64, currency string, ok bool) {
	if n, ok := numberWords[w]; ok {
		return n, "", true
	}
	for sign, code := range map[string]string{"$": "usd", "€": "eur", "£": "gbp", "¥": "jpy"} {
		if rest, found := strings.CutPrefix(w, sign); found {
			w, currency = rest, code
			break
		}
	}
	mult := 1.0
	if currency != "" {
		switch {
		case strings.HasSuffix(w, "k"):
			w, mult = strings.TrimSuffix(w, "k"), 1e3
		case strings.HasSuffix(w, "m"):
			w, mult = strings.TrimSuffix(w, "m"), 1e6
		}
	}
	w = strings.ReplaceAll(w, ",", "")
	if w == "" || !unicode.IsDigit(rune(w[0])) {
		return 0, "", false
	}
	f, err := strconv.ParseFloat(w, 64)
	if err != nil {
		return 0, "", false
	}
	return f * mult, currency, true
}

// houseNumber reports whether token i, a number, is the number of a
// place whose name follows it ("at 12 Rose Lane", "to 14 Orchard Road"):
// it says which place, as the name does, and measures nothing. It is
// recorded as part of the name.
func (s *scanner) houseNumber(i int) bool {
	if _, err := strconv.Atoi(s.toks[i].raw); err != nil || i+1 >= len(s.toks) || !placePreps[s.low(i-1)] ||
		!s.isName(i+1) || months[s.low(i+1)] != 0 {
		return false
	}
	if s.numbered == nil {
		s.numbered = map[int]bool{}
	}
	s.numbered[i] = true
	return true
}

// labelNumber reports whether token i, a whole number, labels the common
// noun before it ("trench 2", "hive 5", "chapter 3", "context 114"): it
// says which one, as a name does, and counts nothing — "the trench 2
// hearth" is not two hearths, and hive 2 is not hive 5. It is recorded as
// part of the name. A unit, a word that measures ("price 45", "every 2")
// or a verb before the number keeps it a quantity.
func (s *scanner) labelNumber(i int) bool {
	if i == 0 || !allDigits(s.toks[i].raw) {
		return false
	}
	p, before, next := s.low(i-1), s.low(i-2), s.low(i+1)
	if _, unit := units[p]; unit || stopwords[p] || rateUnits[p] || numberNouns[p] || measureWords[p] ||
		currencyWords[p] != "" || verbStems[stem(p)] || s.isName(i-1) || !isWordy(p) ||
		!wordnet.Known(p, wordnet.Noun) {
		return false
	}
	// The noun is a phrase of its own ("the trench", "in hive"), and the
	// number is not followed by what it would count ("the customer 2
	// months", "the team 3 pizzas"); or the two open the sentence as its
	// subject ("Hive 2 could swarm").
	subject := i == 1 && (modals[next] || beForms[next] || next == "has" || next == "needs")
	if !determiners[before] && !labelPreps[before] && !subject {
		return false
	}
	if _, unit := units[next]; unit || rateUnits[strings.TrimSuffix(next, "s")] || currencyWords[next] != "" || plural(next) {
		return false
	}
	if s.numbered == nil {
		s.numbered = map[int]bool{}
	}
	s.numbered[i] = true
	return true
}

// clockUnits are the units of time shorter than a day, which "every"
// takes as one ("every hour").
var clockUnits = fields(`hour minute second`)

// labelPreps are the prepositions before a labelled thing ("the hearth
// in trench 2", "the pottery from context 114"). "to" and "into" are not
// among them: where something goes is a value ("escalate the ticket to
// tier 2" changes with "to tier 3").
var labelPreps = fields(`at on in from near outside opposite of for with by within inside across`)

// plural reports whether w is a noun in the plural ("pizzas", "mice").
func plural(w string) bool {
	for _, l := range wordnet.Lemmas(w, wordnet.Noun) {
		if l != w {
			return true
		}
	}
	return false
}

// pointingAdjectives are the stopwords that only point at the thing a
// number counts ("two new mirrors").
var pointingAdjectives = fields(`new old current existing`)

// measureWords name a value a number gives rather than a thing it labels.
var measureWords = fields(`least most price cost fee rate budget limit cap size age score rating salary wage pay
	temperature speed weight height width depth distance ratio share percentage total sum balance`)

func allDigits(w string) bool {
	for _, r := range w {
		if r < '0' || r > '9' {
			return false
		}
	}
	return w != ""
}

// placePreps are the prepositions before a place.
var placePreps = fields(`at on to from in near outside opposite`)

// isNumber reports whether w reads as a number.
func isNumber(w string) bool {
	_, _, ok := number(w)
	return ok
}

// ordinal reads "60th", "1st" as a number.
func ordinal(w string) (float64, bool) {
	for _, suf := range []string{"st", "nd", "rd", "th"} {
		if rest, ok := strings.CutSuffix(w, suf); ok && rest != "" {
			if n, err := strconv.Atoi(rest); err == nil {
				return float64(n), true
			}
		}
	}
	return 0, false
}

// quantityAt reads a number with what qualifies it: the bound before it
// ("at most", "under"), its unit, currency or counted noun after it, and a
// rate ("a month", "per hour"). A bare number after a name is the name's
// version ("PostgreSQL 15").
func (s *scanner) quantityAt(i int) (Facet, int) {
	w := s.low(i)
	if v, ok := ordinal(w); ok {
		return Facet{Kind: Quantity, Key: "ordinal", Value: fmtNum(v), Text: s.toks[i].raw}, 1
	}
	v, currency, ok := number(w)
	if !ok {
		return Facet{}, 0
	}
	if currency == "" && (s.houseNumber(i) || s.labelNumber(i)) {
		return Facet{}, 0
	}
	next := i + 1
	if pointingAdjectives[s.low(next)] && isWordy(s.low(next+1)) && !stopwords[s.low(next+1)] {
		// "two new mirrors" counts mirrors, as "two mirrors" does.
		next++
	}
	if _, word := numberWords[w]; word && (s.low(next) == "" || stopwords[s.low(next)] && s.low(next) != "more") && w != "once" && w != "twice" {
		return Facet{}, 0 // "write one", "the two of us"
	}
	if w == "once" && s.low(i-1) == "at" {
		return Facet{}, 0 // "at once" is "at the same time"
	}
	n := 1
	head := -1 // the counted noun's token, when there is one
	f := Facet{Kind: Quantity, Text: s.toks[i].raw}
	switch u, isUnit := units[s.low(i+1)]; {
	case currency != "":
		f.Key = "money:" + currency
	case currencyWords[s.low(i+1)] != "":
		// "500 dollars" is "$500".
		f.Key = "money:" + currencyWords[s.low(i+1)]
		n++
	case isUnit:
		f.Key, v = u.dim, v*u.size
		if u.dim == "percent" || u.dim == "times" || u.dim == "person" || u.dim == "night" {
			f.Key = u.dim
		}
		n++
	case frequencyWords[w]:
		// "twice a day" counts times, whatever word stands before it.
		f.Key = "times"
	case s.low(next) != "" && !stopwords[s.low(next)] && !temporalPreps[s.low(next)] && isWordy(s.low(next)) &&
		!(strings.HasSuffix(s.low(next), "ed") && verbStems[stem(s.low(next))]):
		// ("order 4471 refunded" counts nothing: the word after the
		// number is a participle.)
		// The counted noun stays a word of the frame: two engineers
		// and two designers are not one slot. It is the head of the
		// phrase after the number, not its first modifier: "5,000
		// hardcover copies" counts copies, as "5,000 copies" does.
		head = s.countedHead(next)
		f.Key = "count:" + stem(s.low(head))
		f.noun = head
	case i > 0 && s.isName(i-1):
		return Facet{Kind: Version, Key: s.canon(i - 1), Value: w, Text: s.text(i-1, i+1)}, 1
	case (s.low(i+1) == "to" || s.low(i+1) == "and") && isNumber(s.low(i+2)):
		// The low end of a range ("2 to 8 degrees", "between 2 and 8
		// degrees"), however it is introduced.
		f.Key = "#range"
	default:
		f.Key = "#" + s.low(i-1)
	}
	// A rate: "$500 a month", "5 times a week", "1,000 emails per hour",
	// "7 hours of sleep a night".
	k := i + n
	if s.low(k) == "of" && s.low(k+1) != "" {
		k += 2
	}
	if r := s.low(k); r == "in" && (s.low(k+1) == "a" || s.low(k+1) == "an" || s.low(k+1) == "one" || s.low(k+1) == "any") &&
		rateUnits[s.low(k+2)] {
		// "9 hours in a day" is "9 hours a day".
		f.Key += "/" + s.low(k+2)
		if k == i+n {
			n += 3
		} else {
			s.toks[k].used, s.toks[k+1].used, s.toks[k+2].used = true, true, true
		}
	} else if r == "a" || r == "an" || r == "per" || r == "each" || r == "every" {
		if p := strings.TrimSuffix(s.low(k+1), "s"); rateUnits[p] {
			f.Key += "/" + p
			if k == i+n {
				n += 2
			} else {
				s.toks[k].used, s.toks[k+1].used = true, true
			}
		}
	} else if p, ok := rateAdverbs[r]; ok {
		// "twice daily" is "twice a day".
		f.Key += "/" + p
		if k == i+n {
			n++
		} else {
			s.toks[k].used = true
		}
	}
	f.Value = fmtNum(v)
	var from int
	var flipped bool
	f.Bound, from, flipped = s.boundBefore(i)
	f.strict = !flipped && strictBounds[strings.ToLower(s.text(from, i))]
	if f.Bound != "" && from < i && strings.HasPrefix(f.Key, "#") {
		// A bare number is keyed by the word before it, and the bound's
		// words are not that word: "must be over 16" and "must be at
		// least 16" measure one thing.
		f.Key = "#" + s.low(from-1)
	}
	f.Text = s.text(from, i+n)
	if flipped {
		f.Text = "at most " + s.text(i, i+n)
	}
	if f.Bound == "" {
		// "16 or older", "3 kW or more", "50 items max": the bound
		// written after the number, or after the noun it counts, which
		// stays a word of the frame.
		at := i + n
		if head >= at {
			at = head + 1
		}
		if _, isUnit := units[s.low(i+1)]; isUnit && dimensionAdjectives[s.low(at)] {
			// "90 cm wide at most": the adjective stays a word of the
			// frame, the bound after it is the measure's.
			at++
		}
		if b, m, ok := s.boundAfter(at); ok {
			f.Bound = b
			if strings.HasPrefix(f.Key, "#") && (ageWords[s.low(at+m-1)] || ageWords[s.low(i-1)]) {
				f.Key, v = "duration", v*units["year"].size
				f.Value = fmtNum(v)
			}
			if at == i+n {
				n += m
				f.Text = s.text(i, i+n)
			} else {
				for k := at; k < at+m; k++ {
					s.toks[k].used = true
				}
				f.Text = s.text(i, at+m)
			}
		}
	}
	return f, n
}

// countedHead is the index of the head of the noun phrase that starts at
// token i: the last of up to three words before a stopword, a preposition,
// a number, a verb or the end ("hardcover copies", "backend engineers").
func (s *scanner) countedHead(i int) int {
	head := i
	for k := i + 1; k < i+3 && k < len(s.toks); k++ {
		w := s.low(k)
		if w == "" || stopwords[w] || temporalPreps[w] || modals[w] || negations[w] || !isWordy(w) {
			break
		}
		if _, ok := units[w]; ok || phrasePreps[w] || verbStems[stem(w)] || boundAfterPhrases[w] != "" || participle(w) {
			break
		}
		head = k
	}
	return head
}

// participle reports whether w is a verb's past participle, which ends
// the counted phrase it follows: "30 boxes delivered by Thursday" counts
// boxes. An irregular one is a form without a regular ending that
// WordNet's exceptions give another verb for ("left").
func participle(w string) bool {
	if _, ok := irregulars[w]; ok {
		return true
	}
	if strings.HasSuffix(w, "ed") {
		return wordnet.Known(w, wordnet.Verb)
	}
	return !strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ing") &&
		slices.ContainsFunc(wordnet.Lemmas(w, wordnet.Verb), func(l string) bool { return l != w })
}

// boundAfter reads a bound written after a quantity at token i ("or
// more", "or older", "at the latest", "max") and returns it and how many
// tokens it takes.
func (s *scanner) boundAfter(i int) (string, int, bool) {
	if i >= len(s.toks) || s.toks[i].used {
		return "", 0, false
	}
	for n := 3; n >= 1; n-- {
		if i+n > len(s.toks) {
			continue
		}
		var ws []string
		for k := i; k < i+n; k++ {
			ws = append(ws, s.toks[k].low)
		}
		if b, ok := boundAfterPhrases[strings.Join(ws, " ")]; ok {
			return b, n, true
		}
	}
	return "", 0, false
}

// isWordy reports whether w is a word of letters (a counted noun).
func isWordy(w string) bool {
	return w != "" && strings.IndexFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && r != '-' }) < 0
}

// boundBefore finds a bound phrase that ends just before token i, marks
// its tokens used and returns the bound, where the phrase starts (i when
// there is none) and whether a negation made a minimum of it a maximum.
func (s *scanner) boundBefore(i int) (string, int, bool) {
	for n := 4; n >= 1; n-- {
		if i-n < 0 {
			continue
		}
		var ws []string
		free := true
		for k := i - n; k < i; k++ {
			ws = append(ws, s.toks[k].low)
			free = free && !s.toks[k].used
		}
		if b, ok := boundPhrases[strings.Join(ws, " ")]; ok && free {
			for k := i - n; k < i; k++ {
				s.toks[k].used = !dimensionComparatives[s.toks[k].low]
			}
			// "cannot cost more than" is a maximum: the negation is the
			// bound's, not the statement's.
			flipped := false
			for k := i - n - 1; k >= 0 && k >= i-n-maxNegationBefore; k-- {
				if negations[s.toks[k].low] && !s.toks[k].used && b == boundMin {
					s.toks[k].used = true
					b, flipped = boundMax, true
					break
				}
			}
			// "refunds over $200 cannot be issued" is "cannot issue
			// refunds above $200": the negation after the bound is the
			// bound's too.
			for k := i + 1; !flipped && b == boundMin && k < len(s.toks) && k <= i+maxNegationAfter; k++ {
				if negations[s.toks[k].low] && !s.toks[k].used {
					s.toks[k].used = true
					b, flipped = boundMax, true
				}
			}
			if s.low(i-n-1) == "every" {
				return "every", i - n, false
			}
			return b, i - n, flipped
		}
	}
	if s.low(i-1) == "every" && !s.toks[i-1].used {
		s.toks[i-1].used = true
		return "every", i - 1, false
	}
	return "", i, false
}

// maxNegationBefore is how many tokens before an upper bound a negation
// may stand and still make it a lower one ("No episode may run longer
// than 45 minutes").
const maxNegationBefore = 4

// maxNegationAfter is how many tokens after a lower bound a negation may
// stand and still make it an upper one.
const maxNegationAfter = 5

func fmtNum(v float64) string { return strconv.FormatFloat(v, 'g', 10, 64) }

// relativeDateAt reads a date without a number after a temporal
// preposition: "on Friday", "in June", "by tomorrow", "next week", "by the
// end of the month", "in Q3", "in 2024"; and "every week" as a frequency.
func (s *scanner) relativeDateAt(i int) (Facet, int) {
	w := s.low(i)
	date := func(v string, n int) (Facet, int) {
		return Facet{Kind: Date, Key: "date", Value: v, Text: s.text(i, i+n)}, n
	}
	switch {
	case (w == "every" || w == "each") && (periods[strings.TrimSuffix(s.low(i+1), "s")] || clockUnits[s.low(i+1)]):
		// "every hour" is every 1 hour: a change from "every 2 hours".
		u := units[s.low(i+1)]
		return Facet{Kind: Quantity, Key: u.dim, Value: fmtNum(u.size), Bound: "every", Text: s.text(i, i+2)}, 2
	case (w == "next" || w == "this" || w == "last") && (periods[s.low(i+1)] || weekdays[s.low(i+1)] != "" || dayParts[s.low(i+1)]):
		v := s.low(i + 1)
		if wd := weekdays[v]; wd != "" {
			v = "wd:" + wd
		}
		return date(w+":"+v, 2)
	case w == "end" && s.low(i+1) == "of":
		k := i + 2
		if s.low(k) == "the" || s.low(k) == "this" || s.low(k) == "next" {
			k++
		}
		if periods[s.low(k)] {
			return date("end:"+s.low(k), k+1-i)
		}
	case dayWords[w]:
		// "today", "tomorrow" are dates wherever they stand.
		return date("rel:"+w, 1)
	case !s.prepBefore(i) && !(weekdays[w] != "" && (s.low(i-1) == "a" || s.low(i-1) == "the") && s.prepBefore(i-1)):
		// "on a Friday" is a date as "on Friday" is.
	case weekdays[w] != "":
		n := 1
		if dayParts[s.low(i+1)] {
			n = 2
		}
		return date("wd:"+weekdays[w], n)
	case s.month(i) != 0:
		return date("m:"+strconv.Itoa(s.month(i)), 1)
	case relativeDays[w] && !dayWords[w]:
		return date("rel:"+w, 1)
	case len(w) == 2 && w[0] == 'q' && w[1] >= '1' && w[1] <= '4':
		return date(w, 1)
	default:
		if y, ok := year(w); ok {
			return date("y:"+strconv.Itoa(y), 1)
		}
	}
	return Facet{}, 0
}
