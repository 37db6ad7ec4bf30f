package extract_test

import (
	"slices"
	"testing"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/extract"
)

// TestRulesMonthsAhead: a month a deadline or a plan names without a year
// is this year's, or the next year's once it has passed (the messages are
// written on 8 May 2023), and after "by", "before", "until" it is when a
// task is due, at the month's precision. A month with its day or year, a
// name ("June Carter"), and "may" the verb are left as they are.
func TestRulesMonthsAhead(t *testing.T) {
	r := extract.NewRules(extract.RulesOptions{})
	for _, tc := range []struct{ content, text, due string }{
		{"Tomasz will handle the band by the end of March.", "Handle the band by the end of March 2024", "2024-03"},
		{"I'll finish the audit by June.", "Finish the audit by June 2023", "2023-06"},
		{"I'll renew the lease before September.", "Renew the lease before September 2023", "2023-09"},
		{"I'll cover the front desk until January.", "Cover the front desk until January 2024", "2024-01"},
		{"I'll finish the audit by June 30.", "Finish the audit by 30 June 2023", "2023-06-30"},
		{"I'll finish the audit by June 2024.", "Finish the audit by June 2024", "2024-06"},
		{"I'll send the draft to be reviewed by June Carter.", "Send the draft to be reviewed by June Carter", ""},
	} {
		t.Run(tc.content, func(t *testing.T) {
			res := extractBatch(t, r, extract.Batch{ThreadID: "t", Messages: []tenure.Message{say("m1", tc.content)}})
			if len(res.Items) != 1 {
				t.Fatalf("want one item, got %v", items(res))
			}
			it := res.Items[0].Item
			if it.Type != tenure.StateAction || it.Text != tc.text || it.Due != tc.due {
				t.Errorf("got %s %q due %q, want action %q due %q", it.Type, it.Text, it.Due, tc.text, tc.due)
			}
		})
	}
}

// TestRulesJoinedWeekdays: a weekday joined by "and" or "or" to a date
// before it is made explicit as that one is ("on Saturday and Sunday");
// one that stands alone without a deadline word is left as written.
func TestRulesJoinedWeekdays(t *testing.T) {
	r := extract.NewRules(extract.RulesOptions{})
	for _, tc := range []struct{ content, text string }{
		{"We decided to hold the open day on Saturday and Sunday.", "Hold the open day on 13 May 2023 and on 14 May 2023"},
		{"Let's run the clinic on Tuesday or Wednesday.", "Run the clinic on 9 May 2023 or on 10 May 2023"},
		{"We decided to hold the open day on Saturday and keep Sunday free.", "Hold the open day on 13 May 2023 and keep Sunday free"},
	} {
		t.Run(tc.content, func(t *testing.T) {
			res := extractBatch(t, r, extract.Batch{ThreadID: "t", Messages: []tenure.Message{say("m1", tc.content)}})
			if len(res.Items) != 1 || res.Items[0].Item.Text != tc.text {
				t.Errorf("got %v, want one item %q", items(res), tc.text)
			}
		})
	}
}

// TestRulesAnsweredPronoun: "it" in an answer to another speaker's
// question stands for what the question asks about, the asker's "your"
// the answerer's own; a pronoun with a thing named in its own clause
// before it is left alone ("It expires in July" is no rule of its own).
func TestRulesAnsweredPronoun(t *testing.T) {
	r := extract.NewRules(extract.RulesOptions{})
	for _, tc := range []struct {
		question, answer string
		want             []string
	}{
		{"What's your budget for the dinner?", "Let's keep it under 300 dollars.", []string{"decision: Keep the budget for the dinner under 300 dollars"}},
		{"Do we have a rollback plan for the pricing page?", "Not yet, I'll write it by Thursday.", []string{"action: Write a rollback plan for the pricing page by 11 May 2023"}},
		{"Anything else?", "Also I need to renew my passport before the trip, it expires in July.", []string{"action: Renew Sam's passport before the trip"}},
	} {
		t.Run(tc.answer, func(t *testing.T) {
			q := tenure.Message{ThreadID: "t", ID: "m1", Role: "assistant", Content: tc.question, CreatedAt: monday}
			res := extractBatch(t, r, extract.Batch{ThreadID: "t", Messages: []tenure.Message{q, say("m2", tc.answer)}})
			var got []string
			for _, c := range res.Items {
				if c.Item.Refs[0] == "m2" {
					got = append(got, string(c.Item.Type)+": "+c.Item.Text)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
