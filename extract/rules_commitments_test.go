package extract_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/extract"
)

// TestRulesAssistantCommitments reads what the assistant side of a
// conversation promises to do after its turn as an action of the
// speaker (or of "assistant"), due when the promise says, and nothing
// from offers, questions, politeness, conditions, what is done already
// or now, and what a chat assistant says about its own answer. Each case
// is Maria's "A refund please." and the answer.
func TestRulesAssistantCommitments(t *testing.T) {
	type task struct{ Text, Owner, Due string }
	r := extract.NewRules(extract.RulesOptions{})
	for _, tc := range []struct {
		name, user, speaker, content string
		want                         []task
	}{
		{"OK/unnamed_today", "Maria", "", "Understood. I'll email you a prepaid return label today.",
			[]task{{"Email Maria a prepaid return label on 8 May 2023", "assistant", "2023-05-08"}}},
		{"OK/unnamed_user_unnamed", "", "", "Understood. I'll email you a prepaid return label today.",
			[]task{{"Email a prepaid return label on 8 May 2023", "assistant", "2023-05-08"}}},
		{"OK/agent_tomorrow", "Maria", "Tom", "Hi, this is Tom from Acme support. I'll escalate this to our billing team tomorrow.",
			[]task{{"Escalate this to our billing team on 9 May 2023", "Tom", "2023-05-09"}}},
		{"OK/agent_undated", "Maria", "Zoe", "Understood, I'll run the manual export each morning until the fix is live.",
			[]task{{"Run the manual export each morning until the fix is live", "Zoe", ""}}},
		{"OK/i_will_by_friday", "Maria", "", "I will send you the replacement by Friday.",
			[]task{{"Send Maria the replacement by 12 May 2023", "assistant", "2023-05-12"}}},
		{"OK/going_to", "Maria", "", "I'm going to ship the replacement by Friday.",
			[]task{{"Ship the replacement by 12 May 2023", "assistant", "2023-05-12"}}},
		{"OK/let_me_get_back", "Maria", "", "Let me check with the warehouse and get back to you tomorrow.",
			[]task{{"Check with the warehouse and get back to Maria on 9 May 2023", "assistant", "2023-05-09"}}},
		{"OK/look_into_get_back", "Maria", "Tom", "Let me look into this and get back to you by Friday.",
			[]task{{"Look into this and get back to Maria by 12 May 2023", "Tom", "2023-05-12"}}},
		{"OK/get_back", "Maria", "", "Thanks, I'll get back to you tomorrow.",
			[]task{{"Get back to Maria on 9 May 2023", "assistant", "2023-05-09"}}},
		{"OK/we_send", "Maria", "Tom", "We'll send a courier to collect the parcel on Thursday.",
			[]task{{"Send a courier to collect the parcel on 11 May 2023", "Tom", "2023-05-11"}}},
		{"OK/pronoun_named_before", "Maria", "Marek", "I can see the duplicate charge. I'll refund it today.",
			[]task{{"Refund the duplicate charge on 8 May 2023", "Marek", "2023-05-08"}}},
		{"NoMatch/offer", "Maria", "", "I can send you a prepaid return label.", nil},
		{"NoMatch/offer_question", "Maria", "", "Would you like me to email you a return label?", nil},
		{"NoMatch/happy_to_help", "Maria", "Tom", "I'll be happy to help.", nil},
		{"NoMatch/keep_in_mind", "Maria", "Tom", "I'll keep that in mind.", nil},
		{"NoMatch/let_me_know", "Maria", "Tom", "Let me know if you need anything else.", nil},
		{"NoMatch/make_a_note", "Maria", "Tom", "Sure, I'll make a note of it.", nil},
		{"NoMatch/need_your_number", "Maria", "Tom", "I'll need your order number first.", nil},
		{"NoMatch/do_my_best", "Maria", "Tom", "I'll do my best.", nil},
		{"NoMatch/if_you_want", "Maria", "", "If you want, I'll email you a label today.", nil},
		{"NoMatch/if_after", "Maria", "Tom", "I'll refund the order today if the photos show damage.", nil},
		{"NoMatch/done_already", "Maria", "Tom", "I've sent the label to your email.", nil},
		{"NoMatch/now", "Maria", "Kim", "Thanks. I'll escalate this to our identity team now.", nil},
		{"NoMatch/let_me_check", "Maria", "Marek", "Sorry about that, Maria! Let me check the account.", nil},
		{"NoMatch/unnamed_undated", "Maria", "", "Great. I'll put together a 4-day itinerary that fits that budget.", nil},
		{"NoMatch/generic_speaker_undated", "Maria", "Assistant", "I'll put together a packing list for the trip.", nil},
		{"NoMatch/for_next_week", "Maria", "", "I'll put together a meal plan for next week.", nil},
		{"NoMatch/talk_verb", "Maria", "", "I'll walk you through the return steps tomorrow.", nil},
		{"NoMatch/chat_object", "Maria", "Tom", "I'll give you some tips on packing the parcel.", nil},
		{"NoMatch/recommend", "Maria", "", "I'd recommend booking the courier early.", nil},
		{"NoMatch/here_are", "Maria", "", "Here are some tips for packing the return:", nil},
		{"NoMatch/colon", "Maria", "", "Today I'll cover the three ways to send it back:", nil},
		{"NoMatch/hedged", "Maria", "Tom", "I think I'll send the label today.", nil},
		{"NoMatch/suggestion_list", "Maria", "", "Here are some ideas for the weekend:\n1. Visit the market on Saturday morning.\n" +
			"2. Book a table at the harbour restaurant by Friday.\n3. Take the ferry to the island.\nLet me know if you'd like more!", nil},
		{"NoMatch/list_answer", "Maria", "Ava", "I'll add cat shampoo to your list.\n\nHere's your updated list:\n* Dog food for Max\n* Cat shampoo", nil},
		{"NoMatch/written_answer", "Maria", "Ava", "Dear Maria, thank you for your order. We are a small studio. Our team reads every message. " +
			"Returns are free for thirty days. Refunds take a week. We'll send a courier to collect the parcel on Thursday. Kind regards.", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			user := tenure.Message{ThreadID: "t", ID: "m1", Role: "user", Speaker: tc.user, Content: "A refund please.", CreatedAt: monday}
			answer := tenure.Message{ThreadID: "t", ID: "m2", Role: "assistant", Speaker: tc.speaker, Content: tc.content, CreatedAt: monday}
			res := extractBatch(t, r, extract.Batch{ThreadID: "t", Messages: []tenure.Message{user, answer}})
			var got []task
			for _, c := range res.Items {
				if c.Item.Type != tenure.StateAction || c.Item.Status != "open" {
					t.Errorf("item %+v, want an open action", c.Item)
				}
				got = append(got, task{c.Item.Text, c.Item.Owner, c.Item.Due})
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("tasks of %q (-want +got):\n%s", tc.content, diff)
			}
		})
	}
}

// TestRulesAssistantOfferAccepted: an offer the user accepts is still no
// promise; the assistant's answer to the acceptance is read as any other.
func TestRulesAssistantOfferAccepted(t *testing.T) {
	r := extract.NewRules(extract.RulesOptions{})
	for _, offer := range []string{
		"I can email you a prepaid return label today.",
		"Shall I email you a prepaid return label today?",
		"Would you like me to email you a prepaid return label today?",
	} {
		t.Run(offer, func(t *testing.T) {
			msgs := []tenure.Message{
				{ThreadID: "t", ID: "m1", Role: "user", Speaker: "Maria", Content: "A refund please.", CreatedAt: monday},
				{ThreadID: "t", ID: "m2", Role: "assistant", Content: offer, CreatedAt: monday},
				{ThreadID: "t", ID: "m3", Role: "user", Speaker: "Maria", Content: "Yes please.", CreatedAt: monday},
			}
			if got := items(extractBatch(t, r, extract.Batch{ThreadID: "t", Messages: msgs})); len(got) != 0 {
				t.Errorf("an accepted offer: items %v, want none", got)
			}
		})
	}
}
