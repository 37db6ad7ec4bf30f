package extract

import (
	"slices"
	"strings"
)

// setAside are the options a decision leaves when it answers the
// either-or question of the messages just before: the other sides of the
// question, when the decision takes exactly one ("Would you like a
// replacement or a refund?" "A replacement" sets aside "a refund"). A
// later decision that takes one of them reverses it (slot.Compare). Nil
// when no question is answered or the decision takes no side, or both.
func setAside(mc *messageContext, decision string) []string {
	if !mc.human {
		return nil
	}
	options, ok := askedOptions(mc)
	if !ok {
		return nil
	}
	sides := eitherSides(options)
	if len(sides) == 2 {
		// The left side runs from the start of the question's clause;
		// its option is its last words, about as many as the right
		// side's ("Should the open day be on a Saturday or a Sunday?":
		// "be on a Saturday", not "the open day").
		ws := strings.Fields(sides[0])
		sides[0] = strings.Join(ws[max(0, len(ws)-len(strings.Fields(sides[1]))-2):], " ")
	}
	keys := pickKeys(decision)
	took := -1
	for i := range sides {
		if !slices.ContainsFunc(ownKeys(sides, i), func(k string) bool { return slices.Contains(keys, k) }) {
			continue
		}
		if took >= 0 {
			return nil
		}
		took = i
	}
	if took < 0 {
		return nil
	}
	var out []string
	for i, s := range sides {
		if i != took {
			out = append(out, optionWords(s))
		}
	}
	return out
}

// ownKeys are the keys of side i that no other side holds.
func ownKeys(sides []string, i int) []string {
	return slices.DeleteFunc(pickKeys(sides[i]), func(k string) bool {
		for j, s := range sides {
			if j != i && slices.Contains(pickKeys(s), k) {
				return true
			}
		}
		return false
	})
}

// optionWords is a side of a question without the words that ask it:
// "a replacement" of "Would you like a replacement", "keeping the swim at
// 6:30" of "Are we keeping the swim at 6:30".
func optionWords(side string) string {
	ws := strings.Fields(tidy(side))
	for len(ws) > 1 {
		w := lower(strings.Trim(ws[0], ",;:"))
		if !choiceVerbs[w] && !statementSubjects[w] && !wishVerbs[w] && !askingWords[w] {
			break
		}
		ws = ws[1:]
	}
	return strings.Join(ws, " ")
}

// askingWords open a question before its options: "So, which one, the
// barn or the hotel?".
var askingWords = set(`so, which, what, one, do, should, shall, then, and, but, either, be`)
