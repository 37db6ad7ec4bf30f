package compile

import "regexp"

// assistantWeight scales the assistant's turns when the query does not
// recall what the assistant said. In a conversation with an assistant the
// user's own turns hold what there is to remember about the user — facts,
// plans, preferences stated in passing — while the assistant's replies,
// often ten times longer, elaborate on them: matched for their many
// words, they would take the budget from the user's turns that the
// question is about.
const assistantWeight = 0.3

// recallsAssistant matches a query that recalls what the assistant said:
// its past speech ("you mentioned", "the move you made", "what did you
// recommend"), "remind me", or a past conversation and what came of it
// ("our previous chat", "we discussed", "what did we agree on", "your
// earlier suggestion"). A request for something new ("can you
// recommend…") is not one: it asks about the user.
var recallsAssistant = regexp.MustCompile(`(?i)\b(?:` +
	`you(?:'ve| have| had)?\s+(?:\w+\s+)?(?:` + pastSpeech + `)|` +
	`did you\s+(?:\w+\s+)?(?:` + speech + `)|` +
	`you (?:were|was) (?:saying|talking|telling|explaining)|` +
	`remind me|tell me again|repeat|recap|` +
	`our (?:\w+\s+)?(?:conversation|chat|discussion|exchange)s?|` +
	`we (?:\w+\s+)?(?:talked|discussed|spoke|chatted|went over|covered|decided|agreed|settled|chose|planned)|` +
	`did we\s+(?:\w+\s+)?(?:talk|discuss|decide|agree|settle|choose|plan)|` +
	`your (?:previous|earlier|last|original) \w+)\b`)

// What the assistant may have said or made, in the past tense and as an
// infinitive ("did you …").
const (
	pastSpeech = `mentioned|said|told|suggested|recommended|gave|given|provided|listed|made|shared|explained|described|` +
		`wrote|written|created|came up with|proposed|offered|named|showed|shown|pointed out|taught|planned|prepared|` +
		`drafted|generated|composed|put together|designed|outlined|calculated|summari[sz]ed|translated|compiled|advised`
	speech = `mention|say|tell|suggest|recommend|give|provide|list|make|share|explain|describe|write|create|come up with|` +
		`propose|offer|name|show|point out|teach|plan|prepare|draft|generate|compose|put together|design|outline|` +
		`calculate|summari[sz]e|translate|compile|advise`
)

// weighRoles scales the assistant's turns by assistantWeight unless the
// query recalls what the assistant said. The weight applies after
// neighbour sharing: a reply that matches the query still lends its
// relevance to the user's turn it answers.
func weighRoles(items []*item, query string) {
	if recallsAssistant.MatchString(query) {
		return
	}
	for _, it := range items {
		if it.hist.Role == "assistant" {
			it.score *= assistantWeight
		}
	}
}
