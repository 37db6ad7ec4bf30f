package extract

// PrefilterMisses returns the expressions of the rules patterns whose
// regexp matches s although their prefilter turns s away, as a string or
// as a text: none, unless a prefilter is wrong. The second result counts
// the patterns whose regexp matches s, so that a test can tell that it
// tried some.
func PrefilterMisses(s string) (misses []string, matched int) {
	t := newText(s)
	for _, p := range allPatterns {
		if !p.re.MatchString(s) {
			continue
		}
		matched++
		if !p.may(s) || !p.mayText(t) {
			misses = append(misses, p.re.String())
		}
	}
	return misses, matched
}

// CutClauses is cutClauses.
var CutClauses = cutClauses
