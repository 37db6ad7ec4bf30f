package extract

import "github.com/tenure-dev/tenure"

// States a person is in, said with "be" in any aspect: "I'm vegan", "I've
// been vegetarian since I was fifteen", "Daniel is vegetarian", "she's
// severely allergic to shellfish", "I've been a nurse for twenty years".
// A diet or an allergy stays true until it is said to change, however the
// speaker tells it, so the tense of "be" does not matter.

const (
	// beSelf is "be" after "I": "'m", "am", "'ve been", "have been".
	beSelf = `(?:'m|\s+am|'ve\s+been|\s+have\s+been)`
	// beOther is "be" after another subject ("is", "has been"), and after
	// "she's" read as "is" ("is been").
	beOther = `(?:is|'s|are|'re|has\s+been|'s\s+been|have\s+been|is\s+been)`
	// stateAdverbs may stand between "be" and the state.
	stateAdverbs = `(?:(?:very|really|severely|seriously|badly|mildly|quite|a\s+bit|strictly|fully|mostly|now|also|still|always|actually|properly|totally|completely)\s+)*`
	// dietStates are the diets a person keeps, said as what they are.
	dietStates = `vegan|vegetarian|veggie|pescatarian|pescetarian|teetotal|coeliac|celiac|(?:lactose|gluten|wheat|dairy|fructose)[- ]intolerant|gluten[- ]free|dairy[- ]free|kosher|halal|plant-based`
	// allergyMods may qualify an allergy: "a severe nut allergy".
	allergyMods = `(?:(?:severe|mild|bad|serious|slight|life-threatening)\s+)?`
)

// selfStates are the states the speaker says they are in.
var selfStates = []factPattern{
	{re: fp(beSelf + `\s+` + stateAdverbs + `(?:an?\s+)?(` + dietStates + `)\b`), attr: "diet", kind: anyValue, conf: tenure.ConfidenceHigh, text: "%s is %s"},
	{re: fp(beSelf + `\s+` + stateAdverbs + `allergic\s+to\s+(.+)`), attr: "allergic_to", kind: anyValue, conf: tenure.ConfidenceHigh, text: "%s is allergic to %s"},
	{re: fp(`(?:\s+have|'ve\s+got|\s+have\s+got)\s+an?\s+` + allergyMods + `([a-z]+)\s+allergy\b`), attr: "allergic_to", kind: anyValue, conf: tenure.ConfidenceHigh, text: "%s is allergic to %s"},
	{re: fp(`\s+(?:don't|do\s+not|never|can't|cannot)\s+drink\s+(.+)`), attr: "diet", kind: foodValue, conf: tenure.ConfidenceHigh, text: "%s does not drink %s"},
	{re: mustPattern(`(?i)^we(?:\s+(?:now|still|currently|all|both))*\s+live\s+in\s+(.+)`), attr: "lives_in", kind: properValue, conf: tenure.ConfidenceMedium, text: "%s lives in %s"},
}

// otherStates are the states said of a relative or a named person, after
// the subject.
var otherStates = []factPattern{
	{re: mustPattern(`(?i)^` + beOther + `\s+` + stateAdverbs + `(?:an?\s+)?(` + dietStates + `)\b`), attr: "diet", kind: anyValue, conf: tenure.ConfidenceHigh, text: "%s is %s"},
	{re: mustPattern(`(?i)^` + beOther + `\s+` + stateAdverbs + `allergic\s+to\s+(.+)`), attr: "allergic_to", kind: anyValue, conf: tenure.ConfidenceHigh, text: "%s is allergic to %s"},
	{re: mustPattern(`(?i)^(?:has|have)\s+(?:got\s+)?an?\s+` + allergyMods + `([a-z]+)\s+allergy\b`), attr: "allergic_to", kind: anyValue, conf: tenure.ConfidenceHigh, text: "%s is allergic to %s"},
	{re: mustPattern(`(?i)^(?:doesn't|does\s+not|don't|do\s+not|never|can't|cannot)\s+(?:eat|drink)\s+(.+)`), attr: "diet", kind: foodValue, conf: tenure.ConfidenceHigh, text: "%s does not eat %s"},
}

// amBeen is "I've been a nurse for twenty years": what "I'm a ..." says,
// said of a time up to now.
var amBeen = fp(`(?:'ve|\s+have)\s+been\s+an?\s+(.+)`)
