package slot

import (
	"regexp"
	"slices"
	"strings"
)

// withdrawnRe is a clause that says something is off: "the Pavilhão fell
// through", "the Leeds venue is no longer an option", "Acme pulled out",
// "the 3 pm slot didn't work out". The submatch is what is off, as the
// clause names it.
var withdrawnRe = regexp.MustCompile(`(?i)^(.*?)\s+(?:fell\s+through|(?:has|had)\s+fallen\s+through|(?:is|'s)\s+off(?:\s+the\s+table)?|(?:is|was|got|has\s+been)\s+(?:now\s+)?(?:cancell?ed|called\s+off|scrapped)|(?:didn't|did\s+not)\s+work\s+out|(?:is|'s)\s+no\s+longer\s+(?:an\s+option|available|happening)|(?:isn't|is\s+not)\s+(?:an\s+option|available|happening)\s+any\s*more|pulled\s+out|backed\s+out)\b`)

// clauseSepRe splits a message into clauses.
var clauseSepRe = regexp.MustCompile(`[.;:!?,]\s+|\s+(?:but|so|and)\s+`)

// maxWithdrawnWords bounds what a withdrawal names: the subject of a
// clause, not a sentence.
const maxWithdrawnWords = 5

// withdrawnWords are words one of which a withdrawal holds: most messages
// hold none, and the test is far cheaper than the regexp's.
var withdrawnWords = []string{"through", "off", "cancel", "scrapped", "work out", "no longer", "more", "pulled", "backed"}

// withdrawn returns what the clauses of message say is off.
func withdrawn(message string) []string {
	low := strings.ToLower(message)
	if !slices.ContainsFunc(withdrawnWords, func(w string) bool { return strings.Contains(low, w) }) {
		return nil
	}
	var out []string
	for _, clause := range clauseSepRe.Split(message, -1) {
		m := withdrawnRe.FindStringSubmatch(strings.TrimSpace(clause))
		if m == nil {
			continue
		}
		w := strings.Fields(m[1])
		if len(w) == 0 || len(w) > maxWithdrawnWords {
			continue
		}
		out = append(out, strings.Join(w, " "))
	}
	return out
}
