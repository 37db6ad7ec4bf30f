package extract_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/extract"
)

// fromMaria is a customer's message in a support thread.
func fromMaria(content string) tenure.Message {
	return tenure.Message{ThreadID: "t", ID: "m1", Role: "user", Speaker: "Maria", Content: content, CreatedAt: monday}
}

// TestRulesContactDetails reads the speaker's email, phone number and
// address as profile facts (a later one replaces an earlier one: they
// hold one value), dated when the sentence says since when, and nothing
// from what is no detail.
func TestRulesContactDetails(t *testing.T) {
	type fact struct{ Attribute, Value, Text string }
	r := extract.NewRules(extract.RulesOptions{})
	for _, tc := range []struct {
		name, content string
		want          []fact
		dated         bool
	}{
		{"OK/email", "Hi, my email is maria@oldmail.com if you need it.", []fact{{"email", "maria@oldmail.com", "Maria's email is maria@oldmail.com"}}, false},
		{"OK/email_changed", "Also my email changed, it's now maria.g@example.com.", []fact{{"email", "maria.g@example.com", "Maria's email is maria.g@example.com"}}, false},
		{"OK/new_email_address", "My new email address is m.garcia@mail.example.org.", []fact{{"email", "m.garcia@mail.example.org", "Maria's email is m.garcia@mail.example.org"}}, false},
		{"OK/new_number_dated", "My new number is 07700 900789 as of yesterday.", []fact{{"phone", "07700 900789", "Maria's phone number is 07700 900789"}}, true},
		{"OK/phone", "My phone number is +44 7700 900123.", []fact{{"phone", "+44 7700 900123", "Maria's phone number is +44 7700 900123"}}, false},
		{"OK/mobile", "My mobile's 07700 900456.", []fact{{"phone", "07700 900456", "Maria's phone number is 07700 900456"}}, false},
		{"OK/address", "My new address is 12 Rose Lane, Leeds LS6 2AB.", []fact{{"address", "12 Rose Lane, Leeds LS6 2AB", "Maria's address is 12 Rose Lane, Leeds LS6 2AB"}}, false},
		{"OK/address_dated", "My address is 4 Mill Road, Otley since March.", []fact{{"address", "4 Mill Road, Otley", "Maria's address is 4 Mill Road, Otley"}}, true},
		{"NoMatch/same", "My email is the same as before.", nil, false},
		{"NoMatch/on_the_form", "My number is on the form.", nil, false},
		{"NoMatch/short_number", "My number is 42.", nil, false},
		{"NoMatch/address_unnumbered", "My address is in the system.", nil, false},
		{"NoMatch/someone_elses", "Her email is julia@example.com.", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := extractBatch(t, r, extract.Batch{ThreadID: "t", Messages: []tenure.Message{fromMaria(tc.content)}})
			var got []fact
			for _, f := range res.Facts {
				got = append(got, fact{f.Attribute, f.Value, f.Text})
				if f.Kind != extract.FactProfile || f.Subject != "Maria" {
					t.Errorf("fact %q is %s about %q, want a profile fact about Maria", f.Text, f.Kind, f.Subject)
				}
				if dated := f.ValidFrom != nil; dated != tc.dated {
					t.Errorf("fact %q dated %v, want %v", f.Text, dated, tc.dated)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("facts of %q (-want +got):\n%s", tc.content, diff)
			}
		})
	}
}

// TestRulesContactPreference reads a refused or limited way of contact
// as a rule of the thread about the speaker and as a profile fact, which
// the next conversation knows too; an assistant's words and a request
// that limits nothing give neither.
func TestRulesContactPreference(t *testing.T) {
	r := extract.NewRules(extract.RulesOptions{})
	for _, tc := range []struct {
		name, content, role string
		want                *ruleFact
	}{
		{"OK/refusal_and_way", "Thanks. Please don't call me, email only.", "user", &ruleFact{"Do not call Maria; email only", "Maria wants email only, no calls"}},
		{"OK/refusal_when", "Never call me at work.", "user", &ruleFact{"Do not call Maria at work", "Maria wants no calls at work"}},
		{"OK/only", "Only email me please.", "user", &ruleFact{"Contact Maria by email only", "Maria wants email only"}},
		{"OK/by_way_only", "Contact me by text only.", "user", &ruleFact{"Contact Maria by text only", "Maria wants text only"}},
		{"OK/rather", "I'd rather you text me than call.", "user", &ruleFact{"Text Maria rather than call", "Maria wants texts rather than calls"}},
		{"NoMatch/assistant", "Please don't call me, email only.", "assistant", nil},
		{"NoMatch/request", "Can you call me back tomorrow?", "user", nil},
		{"NoMatch/email_me", "Email me the invoice please.", "user", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := fromMaria(tc.content)
			m.Role = tc.role
			res := extractBatch(t, r, extract.Batch{ThreadID: "t", Messages: []tenure.Message{m}})
			got := ruleAndFact(res, "contact_preference")
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("contact preference of %q (-want +got):\n%s", tc.content, diff)
			}
		})
	}
}

// TestRulesSecrets reads something kept from a named person or group as
// a rule, and nothing from a "don't tell me" or an assistant's advice.
func TestRulesSecrets(t *testing.T) {
	r := extract.NewRules(extract.RulesOptions{})
	for _, tc := range []struct {
		name, content, role string
		want                []item
	}{
		{"OK/nobody_tell", "And nobody tell Julia about the cake, it's a surprise.", "user", []item{{tenure.StateConstraint, "Do not tell Julia about the cake"}}},
		{"OK/dont_tell", "Don't tell Julia about the cake.", "user", []item{{tenure.StateConstraint, "Do not tell Julia about the cake"}}},
		{"OK/mention_to", "Don't mention the party to my mum.", "user", []item{{tenure.StateConstraint, "Do not tell my mum about the party"}}},
		{"OK/anyone", "Don't tell anyone about the merger yet.", "user", []item{{tenure.StateConstraint, "Do not tell anyone about the merger yet"}}},
		{"NoMatch/me", "Don't tell me about it, I don't want to know.", "user", nil},
		{"NoMatch/it", "Don't tell it about the cake.", "user", nil},
		{"NoMatch/assistant", "Don't tell your boss about the interview yet.", "assistant", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := fromMaria(tc.content)
			m.Role = tc.role
			res := extractBatch(t, r, extract.Batch{ThreadID: "t", Messages: []tenure.Message{m}})
			if diff := cmp.Diff(tc.want, items(res)); diff != "" {
				t.Errorf("items of %q (-want +got):\n%s", tc.content, diff)
			}
		})
	}
}

// TestRulesNotOther reads an order or a "should" that names the option
// it sets aside (", not the gift card") as a decision whose alternatives
// hold that option, as "instead of" and "rather than" do; a feeling or a
// statement about people chooses nothing.
func TestRulesNotOther(t *testing.T) {
	type choice struct {
		Text         string
		Alternatives []string
	}
	r := extract.NewRules(extract.RulesOptions{})
	for _, tc := range []struct {
		name, content string
		want          []choice
	}{
		{"OK/order_not", "Send the refund to my Visa, not the gift card.", []choice{{"Send the refund to my Visa, not the gift card", []string{"the gift card"}}}},
		{"OK/should_not", "The refund should go to my Visa ending 4417, not the gift card.", []choice{{"The refund should go to my Visa ending 4417, not the gift card", []string{"the gift card"}}}},
		{"OK/order_instead", "Send the refund to my Visa instead of the gift card.", []choice{{"Send the refund to my Visa instead of the gift card", []string{"the gift card"}}}},
		{"OK/switched_instead", "We switched to ClickHouse for the analytics store instead of PostgreSQL.", []choice{{"Switch to ClickHouse for the analytics store instead of PostgreSQL", []string{"PostgreSQL"}}}},
		{"OK/bring", "Bring the red wine, not the white.", []choice{{"Bring the red wine, not the white", []string{"the white"}}}},
		{"NoMatch/feeling", "Love the ocean, not the mountains.", nil},
		{"NoMatch/people", "People come for the pressing, not the bottles.", nil},
		{"NoMatch/not_now", "Send it later, not now.", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := extractBatch(t, r, extract.Batch{ThreadID: "t", Messages: []tenure.Message{fromMaria(tc.content)}})
			var got []choice
			for _, c := range res.Items {
				got = append(got, choice{c.Item.Text, c.Item.Alternatives})
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("choices of %q (-want +got):\n%s", tc.content, diff)
			}
		})
	}
}

// TestRulesIntolerances reads a food intolerance as a diet, of the
// speaker or of someone named.
func TestRulesIntolerances(t *testing.T) {
	r := extract.NewRules(extract.RulesOptions{})
	res := extractBatch(t, r, extract.Batch{ThreadID: "t", Messages: []tenure.Message{
		fromMaria("Julia is gluten intolerant, by the way."),
		{ThreadID: "t", ID: "m2", Role: "user", Speaker: "Maria", Content: "I'm dairy intolerant too.", CreatedAt: monday},
	}})
	var got []string
	for _, f := range res.Facts {
		got = append(got, f.Subject+" | "+f.Attribute+" | "+f.Value)
	}
	want := []string{"Julia | diet | gluten intolerant", "Maria | diet | dairy intolerant"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("facts (-want +got):\n%s", diff)
	}
}

// TestRulesAvailability reads when the speaker can or cannot be reached
// as a rule of the thread, and a time that recurs as a profile fact; a
// remark without a time, and a time that only a day names, are no fact.
func TestRulesAvailability(t *testing.T) {
	r := extract.NewRules(extract.RulesOptions{})
	for _, tc := range []struct {
		name, content string
		want          *ruleFact
	}{
		{"OK/only_after", "I'm only available after 3 pm on weekdays.", &ruleFact{"Maria is only available after 3 pm on weekdays", "Maria is only available after 3 pm on weekdays"}},
		{"OK/not_on_days", "I'm not free on Fridays, sorry.", &ruleFact{"Maria is not free on Fridays", "Maria is not free on Fridays"}},
		{"OK/mornings", "I'm only around in the mornings.", &ruleFact{"Maria is only around in the mornings", "Maria is only around in the mornings"}},
		{"OK/one_day_rule_only", "I'm not available on Friday.", &ruleFact{Rule: "Maria is not available on 12 May 2023"}},
		{"NoMatch/now", "I'm not available right now.", nil},
		{"NoMatch/vague", "I'm not around much these days.", nil},
		{"NoMatch/plain", "I'm available on Friday.", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := extractBatch(t, r, extract.Batch{ThreadID: "t", Messages: []tenure.Message{fromMaria(tc.content)}})
			got := ruleAndFact(res, "availability")
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("availability of %q (-want +got):\n%s", tc.content, diff)
			}
		})
	}
}

// TestRulesPrefers reads what the speaker says they prefer as a
// preference of their profile, one fact per thing preferred; a choice
// asked for ("I'd prefer a refund") is a decision, not a preference.
func TestRulesPrefers(t *testing.T) {
	r := extract.NewRules(extract.RulesOptions{})
	for _, tc := range []struct{ content, want string }{
		{"I prefer morning appointments.", "Maria prefers morning appointments"},
		{"I generally prefer paying by card.", "Maria prefers paying by card"},
		{"I'd prefer a refund instead.", ""},
		{"I prefer not to say.", ""},
	} {
		res := extractBatch(t, r, extract.Batch{ThreadID: "t", Messages: []tenure.Message{fromMaria(tc.content)}})
		got := ""
		for _, f := range res.Facts {
			got = f.Text
			if f.Attribute != "prefers" || f.Memory().Subtype.FactType != tenure.FactPreference {
				t.Errorf("%q: fact %q is %s (%s), want a preference", tc.content, f.Text, f.Attribute, f.Memory().Subtype.FactType)
			}
		}
		if got != tc.want {
			t.Errorf("%q: fact %q, want %q", tc.content, got, tc.want)
		}
	}
}

// ruleFact is the rule (a constraint's text) and the profile fact (its
// text) a message gave.
type ruleFact struct{ Rule, Fact string }

// ruleAndFact is the last constraint of res and its fact of attribute
// attr, or nil when it has neither.
func ruleAndFact(res extract.Result, attr string) *ruleFact {
	var got *ruleFact
	for _, c := range res.Items {
		if c.Item.Type == tenure.StateConstraint {
			got = &ruleFact{Rule: c.Item.Text}
		}
	}
	for _, f := range res.Facts {
		if f.Attribute == attr {
			if got == nil {
				got = &ruleFact{}
			}
			got.Fact = f.Text
		}
	}
	return got
}
