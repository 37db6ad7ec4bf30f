package extract_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/extract"
)

// monday is when the test messages are written: Monday 8 May 2023, so
// "tomorrow" is 9 May, "by Friday" 12 May and "next Monday" 15 May.
var monday = time.Date(2023, time.May, 8, 9, 0, 0, 0, time.UTC)

// say is a message from Sam in a team thread.
func say(id, content string) tenure.Message {
	return tenure.Message{ThreadID: "t", ID: id, Role: "user", Speaker: "Sam", Content: content, CreatedAt: monday}
}

func extractBatch(t *testing.T, r *extract.Rules, b extract.Batch) extract.Result {
	t.Helper()
	res, err := r.Extract(context.Background(), b)
	if err != nil {
		t.Fatalf("Extract: %v", err)
	}
	return res
}

// item is what the table tests compare: an item's type and text.
type item struct {
	Type tenure.StateType
	Text string
}

func items(res extract.Result) []item {
	var out []item
	for _, c := range res.Items {
		out = append(out, item{c.Item.Type, c.Item.Text})
	}
	return out
}

func runItemCases(t *testing.T, cases []struct {
	name, content string
	want          []item
}) {
	t.Helper()
	r := extract.NewRules(extract.RulesOptions{})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := extractBatch(t, r, extract.Batch{ThreadID: "t", Messages: []tenure.Message{say("m1", tc.content)}})
			if diff := cmp.Diff(tc.want, items(res)); diff != "" {
				t.Errorf("items of %q (-want +got):\n%s", tc.content, diff)
			}
		})
	}
}

func TestRulesDecisions(t *testing.T) {
	d := func(s string) []item { return []item{{tenure.StateDecision, s}} }
	runItemCases(t, []struct {
		name, content string
		want          []item
	}{
		{"OK/lets_use", "Okay, let's use PostgreSQL for analytics then.", d("Use PostgreSQL for analytics")},
		{"OK/well_go_with", "We'll go with the managed RDS instance so nobody has to babysit backups.", d("Go with the managed RDS instance")},
		{"OK/decided_to", "We decided to keep the API versioned under /v2.", d("Keep the API versioned under /v2")},
		{"OK/decided_when", "We decided to open on Saturday and Sunday.", d("Open on 13 May 2023 and on 14 May 2023")},
		{"OK/decided_time", "We've agreed to meet at 7 pm.", d("Meet at 7 pm")},
		{"None/decided_vague", "We decided to go for it.", nil},
		{"OK/labelled", "Decision: we're switching the charts library to Recharts instead of D3.", d("Switch the charts library to Recharts instead of D3")},
		{"OK/replaced", "We replaced Jenkins with GitHub Actions.", d("Use GitHub Actions instead of Jenkins")},
		{"OK/no_longer", "We're no longer using Recharts; we switched to ECharts.", d("Switch to ECharts instead of Recharts")},
		{"OK/going_with", "OK, going with Flask-Login then.", d("Go with Flask-Login")},
		{"OK/picked", "We picked the barn at Hollow Creek instead of the city hotel.", d("Pick the barn at Hollow Creek instead of the city hotel")},
		{"OK/prefer_instead", "Actually the replacement won't arrive in time, I'd prefer a refund instead.", d("Take a refund instead")},
		{"OK/rather_instead", "Actually, I'd rather have a refund instead of the replacement.", d("Have a refund instead of the replacement")},
		{"OK/rather_go_with", "We'd rather go with Vercel instead of Netlify.", d("Go with Vercel instead of Netlify")},
		{"OK/policy", "Going forward, certificates are renewed automatically through cert-manager.", d("Certificates are renewed automatically through cert-manager")},
		{"OK/decided_against", "We decided against a van hire, we'll pay for a full-service mover.", d("Pay for a full-service mover instead of a van hire")},
		{"OK/final_call", "ok so final call: annual discount stays at 20%, not 25", d("Annual discount stays at 20%, not 25")},
		{"OK/like_to_move", "Also we'd like to move from monthly to annual billing.", d("Move from monthly to annual billing")},
		{"NoMatch/moving_house", "We're moving from Leeds to Bristol at the end of September.", nil},
		{"NoMatch/like_to_if", "If it were cheaper we'd like to move to the annual plan.", nil},
		{"NoMatch/policy_rule", "Going forward, don't share passwords in tickets.", []item{{tenure.StateConstraint, "Going forward, don't share passwords in tickets"}}},
		{"NoMatch/question", "Should we use Redis for the cache?", []item{{tenure.StateQuestion, "Should we use Redis for the cache?"}}},
		{"NoMatch/lets_see", "Let's see how it goes.", nil},
		{"NoMatch/lets_not", "Let's not overthink it, we can revisit in Q3.", nil},
		{"NoMatch/hypothetical", "If we used Kafka we'd need another ops person.", nil},
		{"NoMatch/quoted", `The client said "let's use Oracle" but that's not happening.`, nil},
		{"NoMatch/vague_object", "Let's use it.", nil},
		{"OK/we_not_other", "For the imaging study we're using the confocal, not the widefield scope.", d("Use the confocal, not the widefield scope")},
		{"OK/we_rather_than", "We're ordering antibodies from Abcam rather than Sigma this time.", d("Order antibodies from Abcam rather than Sigma this time")},
		{"OK/rather_than_would", "We'd rather run two concepts than three, the timeline is tight.", d("Run two concepts than three")},
		{"OK/board_approved", "The board approved the smaller catalogue over the full one.", d("The smaller catalogue over the full one")},
		{"NoMatch/we_past", "We went to the beach, not the lake, last summer.", nil},
		{"OK/imperative", "Use Stripe for payments.", d("Use Stripe for payments")},
		{"OK/imperative_topic_first", "For billing, use MongoDB.", d("Use MongoDB for billing")},
		{"OK/imperative_switch", "Switch to Postmark for the transactional emails.", d("Switch to Postmark for the transactional emails")},
		{"NoMatch/imperative_advice", "Use a sharp knife for the onions.", nil},
	})
}

// An assistant's instruction to use something is a recommendation, not the
// user's decision.
func TestRulesAssistantImperative(t *testing.T) {
	r := extract.NewRules(extract.RulesOptions{})
	m := say("m1", "Use Flask-Login for the sessions.")
	m.Role, m.Speaker = "assistant", ""
	if got := items(extractBatch(t, r, extract.Batch{ThreadID: "t", Messages: []tenure.Message{m}})); len(got) != 0 {
		t.Errorf("assistant's imperative: items %v, want none", got)
	}
}

func TestRulesConstraints(t *testing.T) {
	c := func(s string) []item { return []item{{tenure.StateConstraint, s}} }
	runItemCases(t, []struct {
		name, content string
		want          []item
	}{
		{"OK/must_under", "Budget check: hosting must stay under $500 a month.", c("Hosting must stay under $500 a month")},
		{"OK/deadline_weekday", "And the dashboard has to be live by Friday, the demo is that afternoon.", c("The dashboard has to be live by 12 May 2023")},
		{"OK/at_most", "Each API request must complete in at most 300 ms at p95.", c("Each API request must complete in at most 300 ms at p95")},
		{"OK/before_then", "I'm away until June 10, so don't ship before then.", c("Don't ship before 10 June 2023")},
		{"OK/then_no_date", "Don't ship before then.", c("Don't ship before then")},
		{"OK/should_never", "We should never run migrations against production without a snapshot.", c("We should never run migrations against production without a snapshot")},
		{"OK/cant_exceed", "We can't exceed 2 vCPUs per container.", c("We can't exceed 2 vCPUs per container")},
		{"OK/budget", "Budget for the migration is $12k, hard stop.", c("Budget for the migration is $12k")},
		{"OK/deadline_word", "Deadline for the API freeze is next Monday.", c("Deadline for the API freeze is 15 May 2023")},
		// A day without its year takes the coming one: a deadline.
		{"OK/absolute_date", "Okay folks, the release has to go out before 1 June.", c("The release has to go out before 1 June 2023")},
		{"OK/not_permitted", "We're not permitted to collect location data without a prompt.", c("We're not permitted to collect location data without a prompt")},
		{"OK/doesnt_allow", "The venue doesn't allow open flames, so no real candles.", c("The venue doesn't allow open flames")},
		{"OK/not_invited", "Also, kids aren't invited, adults only.", c("Kids aren't invited")},
		{"OK/never_hyphen", "Never force-push to the release branch.", c("Never force-push to the release branch")},
		{"OK/no_one", "Under no circumstances should anyone restart the gateway during business hours.", c("Under no circumstances should anyone restart the gateway during business hours")},
		{"OK/restricted", "Production access is limited to the on-call engineer.", c("Production access is limited to the on-call engineer")},
		{"OK/cant_be_more", "The quote can't be more than £1,800.", c("The quote can't be more than £1,800")},
		{"OK/requires", "The landlord needs four weeks' notice.", c("The landlord needs four weeks' notice")},
		{"OK/pls_dont", "pls don't touch the checkout flow in this release", c("Pls don't touch the checkout flow in this release")},
		{"OK/can_only", "Sure. Invoices can only be reissued by the billing team, so I've asked them.", c("Invoices can only be reissued by the billing team")},
		{"OK/cant_be_passive", "Annual plans are paid upfront and can't be refunded after 30 days.", c("Annual plans are paid upfront and can't be refunded after 30 days")},
		{"NoMatch/cant_be_late", "We can't be late again.", nil},
		{"NoMatch/must_have", "We must have watched that movie ten times.", nil},
		{"NoMatch/must_be_tired", "You must be tired after that trip.", nil},
		{"NoMatch/must_be_broken", "The build must be broken again.", nil},
		{"NoMatch/never_mind", "Never mind, found the charger.", nil},
		{"NoMatch/never_been", "I've never been to Rome.", nil},
		{"NoMatch/at_least_story", "We had at least 50 people at the party.", nil},
		{"NoMatch/cant_wait", "I can't wait for the weekend.", nil},
		{"NoMatch/quoted", `My flatmate says "we must never get a cat" lol.`, nil},
		{"OK/nobody_scope", "Nobody takes the X-ray room out of the rota without telling Emeka.", c("Nobody takes the X-ray room out of the rota without telling Emeka")},
		{"OK/thing_never", "Controlled drugs never leave the locked cabinet unsigned.", c("Controlled drugs never leave the locked cabinet unsigned")},
		{"OK/off_the_table", "New gasket. A whole unit is off the table until the autumn budget.", c("A whole unit is off the table until the autumn budget")},
		{"OK/only_can", "Only the account lead can send files to the client.", c("Only the account lead can send files to the client")},
		{"OK/against_policy", "Using client fonts without a licence is against our policy.", c("Using client fonts without a licence is against our policy")},
		{"OK/not_to_be", "The old logo is not to be used anywhere after launch.", c("The old logo is not to be used anywhere after launch")},
		{"OK/no_policy", "There's a strict no-food policy in the tissue culture room.", c("No food in the tissue culture room")},
		{"OK/stays_locked", "The -80 freezer stays locked outside working hours.", c("The -80 freezer stays locked outside working hours")},
		{"OK/insists", "The lender insists that the panels never be exposed to direct sunlight.", c("The lender insists that the panels never be exposed to direct sunlight")},
		{"OK/class_shouldnt", "Kitchen staff shouldn't wear rings on the line.", c("Kitchen staff shouldn't wear rings on the line")},
		{"NoMatch/nobody_knows", "Nobody knows why the printer jams in the morning.", nil},
		{"NoMatch/nothing_beats", "Nothing beats a long walk in the hills.", nil},
		{"NoMatch/person_never", "My dad never calls me on weekends.", nil},
		{"NoMatch/out_of_question", "That's out of the question, sorry.", nil},
		{"NoMatch/you_shouldnt", "You shouldn't worry so much about it.", nil},
	})
}

func TestRulesActions(t *testing.T) {
	a := func(s string) []item { return []item{{tenure.StateAction, s}} }
	runItemCases(t, []struct {
		name, content string
		want          []item
	}{
		{"OK/ill_tomorrow", "I'll write the migration scripts tomorrow.", a("Write the migration scripts on 9 May 2023")},
		{"OK/ill_on_weekday", "I'll book a room for the retro on Thursday.", a("Book a room for the retro on 11 May 2023")},
		{"OK/todo", "TODO: update the onboarding doc", a("Update the onboarding doc")},
		{"OK/todo_inline", "Also, TODO for me: write the README.", a("Write the README")},
		{"OK/todo_after_decision", "Let's use Redis for the cache. TODO: add a TTL to session keys. Thanks all!",
			[]item{{tenure.StateDecision, "Use Redis for the cache"}, {tenure.StateAction, "Add a TTL to session keys"}}},
		{"OK/checkbox", "- [ ] add alerting on ETL failures", a("Add alerting on ETL failures")},
		{"OK/need_to", "Need to double-check the GDPR rules before we store EU data.", a("Double-check the GDPR rules before we store EU data")},
		{"OK/request_deadline", "Can you send me the cost estimate by Wednesday, Priya?", a("Send Sam the cost estimate by 10 May 2023")},
		{"OK/run", "I'll run the migration tonight.", a("Run the migration on 8 May 2023")},
		{"OK/particle", "I'll send over the slides after lunch.", a("Send over the slides after lunch")},
		{"OK/minutes_owner", "Action item: Elif to add cert expiry alerts by Wednesday.", a("Add cert expiry alerts by 10 May 2023")},
		{"OK/please_vocative", "Sven, please update the runbook before Friday.", a("Update the runbook before 12 May 2023")},
		{"OK/request_today", "Elif, can you share the timeline doc with legal today?", a("Share the timeline doc with legal on 8 May 2023")},
		{"OK/relative_owner", "My sister Julia will book the hair appointments on Friday.", a("Book the hair appointments on 12 May 2023")},
		{"OK/contracted_gonna", "Lin's gonna run the A/B test for two weeks.", a("Run the A/B test for two weeks")},
		{"NoMatch/only_a_time", "Let's circle back next week.", nil},
		{"NoMatch/do_it", "Don't worry, I'll do it.", nil},
		{"NoMatch/take_a_look", "I'll take a look.", nil},
		{"NoMatch/be_there", "I'll be there around 7.", nil},
		{"NoMatch/pronoun_object", "Sure, I'll have it to you by Wednesday.", nil},
		{"NoMatch/gotta_run", "Gotta run, the kids need dinner.", nil},
		{"NoMatch/need_coffee", "Need coffee.", nil},
		{"NoMatch/quoted", "She once said 'I'll clean the kitchen tomorrow' and that was in 2019.", nil},
		{"NoMatch/no_object", "I'll fly from Manchester.", nil},
		{"NoMatch/hedged", "We'll probably do the Blue Hills.", nil},
		{"NoMatch/favour", "Can you help me plan a trip to Lisbon?", nil},
		{"NoMatch/joke", "I'll sell the car tomorrow. Kidding!", nil},
		{"OK/third_progressive", "Jamal is updating the consent forms by Thursday.", a("Update the consent forms by 11 May 2023")},
		{"OK/on_the_hook", "Emeka's on the hook for the autoclave service before the 20th.", a("Handle the autoclave service before 20 May 2023")},
		{"OK/named_duty", "Hugh has to return the signed lease by Friday.", a("Return the signed lease by 12 May 2023")},
		{"OK/name_request", "Can Pieter get the labels proofread before Friday?", a("Get the labels proofread before 12 May 2023")},
		{"OK/task_is", "Pieter's task this week is to photograph the new acquisitions.", a("Photograph the new acquisitions")},
		{"NoMatch/progressive_undated", "Jamal is updating the consent forms.", nil},
		{"NoMatch/pastime", "Lotte is visiting her sister in Porto next week.", nil},
		{"OK/relative_needs_to", "My mum needs to sign the carer's form by Friday.", a("Sign the carer's form by 12 May 2023")},
		{"OK/remind_me", "Remind me to renew my passport by next Tuesday.", a("Renew Sam's passport by 9 May 2023")},
		{"OK/dont_let_me_forget", "Please don't let me forget to call the bank tomorrow.", a("Call the bank on 9 May 2023")},
		{"NoMatch/remind_me_of", "Remind me of the name of that cafe?", nil},
		{"OK/relative_progressive", "My husband's picking up the crutches on Saturday.", a("Pick up the crutches on 13 May 2023")},
		{"OK/not_supposed", "We're not supposed to put any weight on the leg until the check-up.", []item{{tenure.StateConstraint, "We're not supposed to put any weight on the leg until the check-up"}}},
	})
}

func TestRulesQuestions(t *testing.T) {
	q := func(s string) []item { return []item{{tenure.StateQuestion, s}} }
	runItemCases(t, []struct {
		name, content string
		want          []item
	}{
		{"OK/wh", "Also, what's the retention period for raw events? Nobody has told me yet.", q("What's the retention period for raw events?")},
		{"OK/yes_no", "Are we sure RDS supports the pg_partman extension?", q("Are we sure RDS supports the pg_partman extension?")},
		{"OK/last_clause", "Yes please, and what's the best way to store the secret key?", q("What's the best way to store the secret key?")},
		{"OK/anyone", "Can anyone explain how the cache works?", q("Can anyone explain how the cache works?")},
		{"NoMatch/greeting", "Hey, how are you?", nil},
		{"NoMatch/how_is", "How's the new apartment?", nil},
		{"NoMatch/rhetorical", "Who even reads the terms and conditions, right?", nil},
		{"NoMatch/emphatic", "who ate my yogurt from the office fridge??", nil},
		{"NoMatch/did_you_know", "Did you know octopuses have three hearts?", nil},
		{"NoMatch/personal", "Do you live in the city centre?", nil},
		{"NoMatch/what_if", "What if the train is late again?", nil},
		{"NoMatch/fragment", "A nice watch?", nil},
		{"NoMatch/proposal", "Let's grab coffee on Saturday?", nil},
		{"OK/options", "Fish or lamb for the main on the set menu?", q("Fish or lamb for the main on the set menu?")},
		{"OK/or_alternative", "Do we need a solicitor for a renewal, or can we sign it ourselves?", q("Do we need a solicitor for a renewal?")},
		{"NoMatch/options_personal", "For walking or running?", nil},
		{"NoMatch/or_personal", "Is Spider-Man your favorite superhero, or do you have another fave?", nil},
	})
}

func TestRulesRisks(t *testing.T) {
	k := func(s string) []item { return []item{{tenure.StateRisk, s}} }
	runItemCases(t, []struct {
		name, content string
		want          []item
	}{
		{"OK/conditional_harm", "If the printer misses Friday, the mailing goes out late and we lose a week of donations.", k("If the printer misses Friday, the mailing goes out late and we lose a week of donations")},
		{"OK/what_worries_me", "What worries me is that the donation page still times out on mobile.", k("The donation page still times out on mobile")},
		{"OK/chances_are", "Chances are the weather keeps people indoors on the collection day.", k("The weather keeps people indoors on the collection day")},
		{"NoMatch/conditional_offer", "If you need anything, I'll be there.", nil},
		{"NoMatch/conditional_no_harm", "If the weather holds, we'll have the picnic in the park.", nil},
		{"OK/labelled", "Risk: the client may not have SSO ready in time for the demo.", k("The client may not have SSO ready in time for the demo")},
		{"OK/concern", "One concern: the nightly ETL might break if the schema changes.", k("The nightly ETL might break if the schema changes")},
		{"OK/there_is", "There's a risk that the Redis memory limit gets hit during the peak.", k("Risk that the Redis memory limit gets hit during the peak")},
		{"OK/worried", "I'm worried the load tests won't finish before the freeze.", k("The load tests won't finish before the freeze")},
		{"OK/might_fail", "The payment webhook might fail under load.", k("The payment webhook might fail under load")},
		{"OK/take_longer", "Apple's review could take longer than usual because of the new rules.", k("Apple's review could take longer than usual")},
		{"OK/worst_case", "Worst case, the same thing happens to the public gateway.", k("The same thing happens to the public gateway")},
		{"OK/good_chance", "There's a good chance the old agent conflicts with the new one.", k("Chance that the old agent conflicts with the new one")},
		{"NoMatch/hyperbole", "I might break my phone if it freezes one more time.", nil},
		{"NoMatch/worried_about_person", "I'm worried about my mom.", nil},
		{"NoMatch/pronoun", "It might break.", nil},
		{"NoMatch/own_worry", "I'm worried I won't sleep tonight.", nil},
		{"NoMatch/forecast", "There's a chance of rain tomorrow.", nil},
		// Round 7: conditions without a comma, worries that are
		// hypothetical, sources cited for comparison, frames with a
		// colon, and names set off by commas inside the worry.
		{"OK/conditional_no_comma", "If the permit doesn't come through we'll lose the slot.", k("If the permit doesn't come through we'll lose the slot")},
		{"OK/conditional_weather", "If it rains we'll be stuck in the tent with the generator.", k("If it rains we'll be stuck in the tent with the generator")},
		{"OK/forced_consequence", "If the caterer cancels, we'd have to push the whole event back.", k("If the caterer cancels, we'd have to push the whole event back")},
		{"OK/hypothetical_worry", "My worry is the tide, if it turns early we'd have to abandon the crossing.", k("The tide, if it turns early we'd have to abandon the crossing")},
		{"OK/as_forecast_says", "If the frost comes on Friday as the forecast says, we could lose the blossom.", k("If the frost comes on Friday, we could lose the blossom")},
		{"OK/could_go_wrong_colon", "Another thing that could go wrong: the lift is still broken and the landlord hasn't called back.", k("The lift is still broken and the landlord hasn't called back")},
		{"OK/named_apposition", "Our main risk is that the landlord, Mr Doyle, could sell the building.", k("The landlord, Mr Doyle, could sell the building")},
		{"NoMatch/conditional_if_i", "If I win the raffle I'll buy everyone lunch.", nil},
	})
}

// fact is what the fact tables compare.
type fact struct{ Subject, Attribute, Value string }

func facts(res extract.Result) []fact {
	var out []fact
	for _, f := range res.Facts {
		out = append(out, fact{f.Subject, f.Attribute, f.Value})
	}
	return out
}

func TestRulesFacts(t *testing.T) {
	cases := []struct {
		name    string
		msg     tenure.Message
		opts    extract.RulesOptions
		want    []fact
		wantTxt []string
	}{
		{name: "OK/lives_in", msg: say("m1", "I live in Boston."), want: []fact{{"Sam", "lives_in", "Boston"}}, wantTxt: []string{"Sam lives in Boston"}},
		{name: "OK/moved_from", msg: say("m1", "I moved to Boston from Sweden four years ago."),
			want: []fact{{"Sam", "lives_in", "Boston"}, {"Sam", "from", "Sweden"}}},
		{name: "OK/works_at", msg: say("m1", "I work at Acme on weekends."), want: []fact{{"Sam", "works_at", "Acme"}}},
		{name: "OK/job", msg: say("m1", "I'm a data engineer by training."), want: []fact{{"Sam", "job", "data engineer"}}, wantTxt: []string{"Sam works as a data engineer"}},
		{name: "OK/identity", msg: say("m1", "I'm a transgender woman myself."), want: []fact{{"Sam", "identity", "transgender woman"}}},
		{name: "OK/relative_name_job", msg: say("m1", "My sister Anna is a nurse."),
			want: []fact{{"Sam's sister", "name", "Anna"}, {"Sam's sister", "job", "nurse"}}},
		{name: "OK/pronoun", msg: say("m1", "My brother lives in Denver, he works at a bakery."),
			want: []fact{{"Sam's brother", "lives_in", "Denver"}, {"Sam's brother", "works_at", "a bakery"}}},
		{name: "OK/likes", msg: say("m1", "I love hiking, it clears my head."), want: []fact{{"Sam", "likes", "hiking"}}},
		{name: "OK/negated_like", msg: say("m1", "I don't really like biographies."), want: []fact{{"Sam", "dislikes", "biographies"}}},
		{name: "OK/favorite", msg: say("m1", "My favorite band is Radiohead."), want: []fact{{"Sam", "favorite_band", "Radiohead"}}, wantTxt: []string{"Sam's favorite band is Radiohead"}},
		{name: "OK/favorite_inverted", msg: say("m1", "Agatha Christie is my favorite author."), want: []fact{{"Sam", "favorite_author", "Agatha Christie"}}},
		{name: "OK/has", msg: say("m1", "I have two kids and a dog."), want: []fact{{"Sam", "has", "two kids"}, {"Sam", "has", "a dog"}}},
		{name: "OK/plural_relative", msg: say("m1", "I live in Bristol but my parents are in Cardiff."),
			want:    []fact{{"Sam", "lives_in", "Bristol"}, {"Sam's parents", "lives_in", "Cardiff"}},
			wantTxt: []string{"Sam lives in Bristol", "Sam's parents live in Cardiff"}},
		{name: "OK/before_question", msg: say("m1", "My dad is turning 60 next week, any gift ideas?"), want: []fact{{"Sam's dad", "age", "60"}}},
		{name: "OK/no_speaker", msg: tenure.Message{ID: "m1", Role: "user", Content: "I live in Leeds.", CreatedAt: monday}, want: []fact{{"user", "lives_in", "Leeds"}}},
		{name: "OK/user_name", msg: tenure.Message{ID: "m1", Role: "user", Content: "I live in Leeds.", CreatedAt: monday},
			opts: extract.RulesOptions{UserName: "Jo"}, want: []fact{{"Jo", "lives_in", "Leeds"}}},
		{name: "OK/user_speaker_as_assistant", msg: tenure.Message{ID: "m1", Role: "assistant", Speaker: "Mel", Content: "I live in Leeds.", CreatedAt: monday},
			opts: extract.RulesOptions{UserSpeakers: []string{"Mel"}}, want: []fact{{"Mel", "lives_in", "Leeds"}}},
		{name: "OK/fiance", msg: say("m1", "My fiancé Tomasz is Polish."), want: []fact{{"Sam's fiancé", "name", "Tomasz"}}},
		{name: "OK/before_report", msg: say("m1", "My partner works at Spotify, she says their release train is weekly."),
			want: []fact{{"Sam's partner", "works_at", "Spotify"}}},
		{name: "OK/org_apposition", msg: say("m1", "Our QA partner, Testlio, is headquartered in Tallinn."), want: []fact{{"Testlio", "based_in", "Tallinn"}}},
		{name: "OK/role_at_place", msg: say("m1", "FYI Marta Novak is the new SRE lead at our Berlin office."), want: []fact{{"Marta Novak", "role", "SRE lead"}}},
		{name: "OK/joined_as", msg: say("m1", "Marta Novak joined Acme as head of sales."),
			want: []fact{{"Marta Novak", "role", "head of sales"}, {"Marta Novak", "works_at", "Acme"}}},
		{name: "OK/name_is_role", msg: say("m1", "The agent is Priya Shah from Dunmore Estates."),
			want: []fact{{"Priya Shah", "role", "agent"}, {"Priya Shah", "works_at", "Dunmore Estates"}}},
		{name: "OK/leads", msg: say("m1", "For context, Emeka heads the surgical team and Lotte manages the front desk."),
			want: []fact{{"Emeka", "role", "heads the surgical team"}, {"Lotte", "role", "manages the front desk"}}},
		{name: "OK/org_kind", msg: say("m1", "Greenfield Labs is a small outfit out of Harrogate with around 40 staff."),
			want: []fact{{"Greenfield Labs", "employees", "40"}, {"Greenfield Labs", "based_in", "Harrogate"}}},
		{name: "OK/org_they_since", msg: say("m1", "Dunmore Estates is a family business based in Bath, they've been letting since 1986."),
			want: []fact{{"Dunmore Estates", "based_in", "Bath"}, {"Dunmore Estates", "founded", "1986"}}},
		{name: "OK/who_clause", msg: say("m1", "Tobias, who leads the design team now, will present the concepts on Friday."),
			want: []fact{{"Tobias", "role", "leads the design team"}}},
		{name: "OK/intro", msg: say("m1", "Meet Tobias Klein, our new art director, he joins from Pentagram."),
			want: []fact{{"Tobias Klein", "role", "art director"}}},
		{name: "OK/relation_apposition", msg: say("m1", "Femi, Keiko's husband, started at the Crick in September."),
			want: []fact{{"Keiko's husband", "name", "Femi"}, {"Femi", "works_at", "the Crick"}}},
		{name: "OK/self_role", msg: say("m1", "I'm the new secretary, Bridget stepped down in August."), want: []fact{{"Sam", "role", "secretary"}}},
		{name: "OK/works_at_as", msg: say("m1", "I work at Initech as a data engineer."),
			want: []fact{{"Sam", "works_at", "Initech"}, {"Sam", "job", "data engineer"}}},
		{name: "OK/left_to_join", msg: say("m1", "I left Initech to join Globex."), want: []fact{{"Sam", "works_at", "Globex"}}},
		{name: "OK/joined_as_self", msg: say("m1", "I've just joined Globex as a data engineer."),
			want: []fact{{"Sam", "works_at", "Globex"}, {"Sam", "job", "data engineer"}}},
		{name: "OK/new_job_at", msg: say("m1", "I started a new job at Globex last week."), want: []fact{{"Sam", "works_at", "Globex"}}},
		{name: "NoMatch/joined_club", msg: say("m1", "I joined a gym and the local choir.")},
		{name: "NoMatch/person_based_in", msg: say("m1", "Priya is based in Berlin these days."), want: []fact{{"Priya", "lives_in", "Berlin"}}},
		{name: "NoMatch/hypothetical", msg: say("m1", "If I lived in Paris I'd eat croissants every day.")},
		{name: "NoMatch/negated", msg: say("m1", "I don't live in London anymore.")},
		{name: "NoMatch/question", msg: say("m1", "Do you live in Leeds?")},
		{name: "NoMatch/pronoun_object", msg: say("m1", "I love you guys.")},
		{name: "NoMatch/not_a_role", msg: say("m1", "I'm a bit tired today.")},
		{name: "NoMatch/past", msg: say("m1", "I used to work at a bakery.")},
		{name: "NoMatch/reported", msg: say("m1", "My flatmate says I love chaos.")},
		{name: "NoMatch/not_had", msg: say("m1", "I have no time for games.")},
		{name: "NoMatch/place_pronoun", msg: say("m1", "My sister lives there too.")},
		{name: "NoMatch/busy_now", msg: say("m1", "I'm in a meeting now.")},
		{name: "NoMatch/work_when", msg: say("m1", "I work at night mostly.")},
		{name: "NoMatch/assistant", msg: tenure.Message{ID: "m1", Role: "assistant", Content: "I live in the cloud, ha.", CreatedAt: monday}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := extractBatch(t, extract.NewRules(tc.opts), extract.Batch{Messages: []tenure.Message{tc.msg}})
			if diff := cmp.Diff(tc.want, facts(res)); diff != "" {
				t.Errorf("facts of %q (-want +got):\n%s", tc.msg.Content, diff)
			}
			if tc.wantTxt != nil {
				var got []string
				for _, f := range res.Facts {
					got = append(got, f.Text)
				}
				if diff := cmp.Diff(tc.wantTxt, got); diff != "" {
					t.Errorf("fact texts (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestRulesTemporal(t *testing.T) {
	r := extract.NewRules(extract.RulesOptions{})
	res := extractBatch(t, r, extract.Batch{Messages: []tenure.Message{
		say("m1", "I moved to Boston four years ago."),
		say("m2", "I'm moving to Berlin next month."),
		say("m3", "I live in Leeds."),
	}})
	want := []struct {
		text      string
		validFrom *time.Time
	}{
		{"Sam lives in Boston since 2019", tenure.Ptr(time.Date(2019, 1, 1, 0, 0, 0, 0, time.UTC))},
		{"Sam is moving to Berlin in June 2023", tenure.Ptr(time.Date(2023, 6, 1, 0, 0, 0, 0, time.UTC))},
		{"Sam lives in Leeds", nil},
	}
	if len(res.Facts) != len(want) {
		t.Fatalf("got %d facts, want %d: %+v", len(res.Facts), len(want), res.Facts)
	}
	for i, w := range want {
		f := res.Facts[i]
		if f.Text != w.text || !cmp.Equal(f.ValidFrom, w.validFrom) {
			t.Errorf("fact %d = %q from %v, want %q from %v", i, f.Text, f.ValidFrom, w.text, w.validFrom)
		}
	}

	t.Run("OK/injected_resolver", func(t *testing.T) {
		due := time.Date(2030, 1, 2, 0, 0, 0, 0, time.UTC)
		r := extract.NewRules(extract.RulesOptions{Resolve: func(text string, _ time.Time) []tenure.ResolvedDate {
			return []tenure.ResolvedDate{{Expr: "soonish", Date: due, Granularity: "day"}}
		}})
		res := extractBatch(t, r, extract.Batch{Messages: []tenure.Message{say("m1", "I'll ship the installer soonish.")}})
		if got, want := items(res), []item{{tenure.StateAction, "Ship the installer on 2 January 2030"}}; !cmp.Equal(got, want) {
			t.Errorf("items = %v, want %v", got, want)
		}
	})
}

func TestRulesCandidates(t *testing.T) {
	r := extract.NewRules(extract.RulesOptions{})
	res := extractBatch(t, r, extract.Batch{ThreadID: "t", Messages: []tenure.Message{
		say("m1", "TODO: rotate the staging API keys"),
		say("m2", "TODO: rotate the staging API keys"),
	}})
	if len(res.Items) != 1 {
		t.Fatalf("got %d items, want the repeated to-do folded into 1: %+v", len(res.Items), res.Items)
	}
	it := res.Items[0].Item
	want := tenure.StateItem{
		UID: tenure.StateUID(tenure.StateAction, "Rotate the staging API keys"), Type: tenure.StateAction,
		Text: "Rotate the staging API keys", Status: "open", TopicTags: []string{"api"}, Refs: []string{"m1", "m2"},
		Confidence: tenure.ConfidenceHigh, Source: extract.RulesSource, ThreadID: "t", Subject: "rotate staging api keys",
	}
	if diff := cmp.Diff(want, it); diff != "" {
		t.Errorf("item (-want +got):\n%s", diff)
	}
}

func TestRulesQuestionStatus(t *testing.T) {
	r := extract.NewRules(extract.RulesOptions{})
	reply := func(content string) tenure.Message {
		m := say("m2", content)
		m.Speaker = "Dev"
		return m
	}
	for _, tc := range []struct {
		name, answer, want string
	}{
		{"OK/yes", "It does, I checked last week.", "answered"},
		{"OK/on_topic", "RDS lists pg_partman among its extensions.", "answered"},
		{"Open/deferral", "Good question, I'll ask legal.", "open"},
		{"Open/question_back", "Which version of RDS?", "open"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := extractBatch(t, r, extract.Batch{Messages: []tenure.Message{
				say("m1", "Does RDS support the pg_partman extension?"), reply(tc.answer)}})
			if len(res.Items) == 0 || res.Items[0].Item.Type != tenure.StateQuestion {
				t.Fatalf("no question extracted: %+v", res.Items)
			}
			if got := res.Items[0].Item.Status; got != tc.want {
				t.Errorf("status = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestRulesIssueMisses replays what the rules missed in the issue: a
// negative constraint, a third person's action with a due date, people
// facts, and a decision between alternatives.
func TestRulesIssueMisses(t *testing.T) {
	r := extract.NewRules(extract.RulesOptions{})
	march := time.Date(2025, time.March, 10, 9, 0, 0, 0, time.UTC) // a Monday
	msg := func(id, content string) tenure.Message {
		return tenure.Message{ThreadID: "t", ID: id, Role: "user", Speaker: "Sam", Content: content, CreatedAt: march}
	}
	res := extractBatch(t, r, extract.Batch{ThreadID: "t", Messages: []tenure.Message{
		msg("m1", "Reminder: we cannot store raw IP addresses (GDPR)."),
		msg("m2", "Marco will set up the ingestion pipeline by Friday March 14."),
		msg("m3", "John is my cofounder, and Sarah is the CEO."),
		msg("m4", "We decided to go with ClickHouse instead of Postgres for the event store."),
	}})
	var got []string
	for _, c := range res.Items {
		got = append(got, fmt.Sprintf("%s %q owner=%q due=%q", c.Item.Type, c.Item.Text, c.Item.Owner, c.Item.Due))
	}
	for _, f := range res.Facts {
		got = append(got, fmt.Sprintf("fact %s %s %q", f.Subject, f.Attribute, f.Value))
	}
	want := []string{
		`constraint "We cannot store raw IP addresses (GDPR)" owner="" due=""`,
		`action "Set up the ingestion pipeline by 14 March 2025" owner="Marco" due="2025-03-14"`,
		`decision "Go with ClickHouse instead of Postgres for the event store" owner="" due=""`,
		`fact Sam's cofounder name "John"`,
		`fact Sarah role "CEO"`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("items and facts (-want +got):\n%s", diff)
	}
}

// TestRulesNoTimeOfDayLikes checks that "a morning person" prefers a
// time of day rather than likes it (the issue's "Sam likes morning").
func TestRulesNoTimeOfDayLikes(t *testing.T) {
	r := extract.NewRules(extract.RulesOptions{})
	for content, want := range map[string][]string{
		"I'm a morning person, so standups at 9 work.": nil,
		"I'm not a morning person at all.":             nil,
		"Honestly I'm more of a yoga person.":          {"Sam likes yoga"},
	} {
		res := extractBatch(t, r, extract.Batch{Messages: []tenure.Message{say("m1", content)}})
		var got []string
		for _, f := range res.Facts {
			got = append(got, f.Text)
		}
		if !slices.Equal(got, want) {
			t.Errorf("facts of %q = %q, want %q", content, got, want)
		}
	}
}

func TestRulesDeterministic(t *testing.T) {
	bs := batches(readLabelled(t))
	first := extract.NewRules(extract.RulesOptions{})
	for _, b := range bs {
		a := extractBatch(t, first, b)
		again := extractBatch(t, extract.NewRules(extract.RulesOptions{}), b)
		if diff := cmp.Diff(a, again); diff != "" {
			t.Fatalf("thread %s: results differ between runs (-first +second):\n%s", b.ThreadID, diff)
		}
		for _, c := range a.Items {
			if want := c.Item.ItemUID(); c.Item.UID != want {
				t.Errorf("uid of %q = %s, want %s", c.Item.Text, c.Item.UID, want)
			}
		}
	}
}

func TestRulesCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := extract.NewRules(extract.RulesOptions{}).Extract(ctx, extract.Batch{Messages: []tenure.Message{say("m1", "hi")}})
	if got := tenure.ErrorCode(err); got != tenure.CodeTimeout || !errors.Is(err, context.Canceled) {
		t.Errorf("error = %v (code %q), want a %q error wrapping context.Canceled", err, got, tenure.CodeTimeout)
	}
}

func FuzzRules(f *testing.F) {
	for _, l := range readLabelled(f) {
		f.Add(l.Message.Content, l.Message.Role, l.Message.Speaker)
	}
	f.Add("I'm a \x00 nurse; TODO: \u00a0ship it?? \"let's use X", "user", "")
	r := extract.NewRules(extract.RulesOptions{})
	f.Fuzz(func(t *testing.T, content, role, speaker string) {
		b := extract.Batch{ThreadID: "t", Messages: []tenure.Message{
			{ID: "m1", Role: role, Speaker: speaker, Content: content, CreatedAt: monday},
			{ID: "m2", Role: "user", Speaker: "Dev", Content: content + " Yes.", CreatedAt: monday.Add(time.Minute)},
		}}
		res, err := r.Extract(context.Background(), b)
		if err != nil {
			t.Fatalf("Extract: %v", err)
		}
		ids := []string{"m1", "m2"}
		for _, c := range res.Items {
			if err := c.Item.Validate(); err != nil {
				t.Errorf("item %+v does not validate: %v", c.Item, err)
			}
			if c.Item.UID != c.Item.ItemUID() {
				t.Errorf("item %q has uid %s", c.Item.Text, c.Item.UID)
			}
			if len(c.Item.Refs) == 0 || !subset(c.Item.Refs, ids) {
				t.Errorf("item %q refs %v, want a non-empty subset of %v", c.Item.Text, c.Item.Refs, ids)
			}
		}
		for _, fc := range res.Facts {
			if fc.Subject == "" || fc.Attribute == "" || fc.Value == "" || fc.Text == "" {
				t.Errorf("incomplete fact %+v", fc)
			}
			if len(fc.Refs) == 0 || !subset(fc.Refs, ids) {
				t.Errorf("fact %q refs %v, want a non-empty subset of %v", fc.Text, fc.Refs, ids)
			}
		}
	})
}

// BenchmarkRules measures the extractor over the fixture's threads, over
// long turns made of them, and over a pathological message. Run it with
//
//	go test -run '^$' -bench BenchmarkRules -benchtime 3s ./extract/
func BenchmarkRules(b *testing.B) {
	r := extract.NewRules(extract.RulesOptions{})
	fixture := batches(readLabelled(b))
	run := func(b *testing.B, bs []extract.Batch) {
		n := 0
		for _, x := range bs {
			n += len(x.Messages)
		}
		b.ReportAllocs()
		for b.Loop() {
			for _, x := range bs {
				if _, err := r.Extract(context.Background(), x); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/message")
		b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "msgs/s")
	}
	b.Run("fixture", func(b *testing.B) { run(b, fixture) })
	b.Run("long_turns", func(b *testing.B) { run(b, longTurns(fixture, 3)) })
	b.Run("lone_apostrophes", func(b *testing.B) {
		run(b, []extract.Batch{{Messages: []tenure.Message{say("m1", strings.Repeat("x 'a ", 20000))}}})
	})
}

// longTurns joins every n messages of each batch into one turn, said by
// the first one's speaker: turns as long as those of a long chat between
// two people (LoCoMo's average 127 bytes), where the fixture's are short.
func longTurns(bs []extract.Batch, n int) []extract.Batch {
	var out []extract.Batch
	for _, x := range bs {
		y := extract.Batch{ThreadID: x.ThreadID}
		for i := 0; i < len(x.Messages); i += n {
			m := x.Messages[i]
			for _, next := range x.Messages[i+1 : min(i+n, len(x.Messages))] {
				m.Content += " " + next.Content
			}
			y.Messages = append(y.Messages, m)
		}
		out = append(out, y)
	}
	return out
}

func subset(xs, of []string) bool {
	for _, x := range xs {
		if !slices.Contains(of, x) {
			return false
		}
	}
	return true
}

// prefilterTexts are texts for the prefilter tests: the fixture's messages
// as they are, upper-cased, with the runes that (?i) matches to s and k
// (ſ and the Kelvin sign), and with other spaces, and some texts of
// their own.
func prefilterTexts(t testing.TB) []string {
	t.Helper()
	variants := []func(string) string{
		func(s string) string { return s },
		strings.ToUpper,
		strings.NewReplacer("s", "\u017f", "k", "\u212a", "K", "\u212a").Replace,
		strings.NewReplacer(" ", "\t", ",", ",\n").Replace,
	}
	// Every message as written and in capitals; the look-alike letters
	// and the changed spacing, which exercise the same folding in every
	// message, on every fourth (the property ran ~4 s on all of them).
	var out []string
	for i, l := range readLabelled(t) {
		for j, v := range variants {
			if j < 2 || i%4 == 0 {
				out = append(out, v(l.Message.Content))
			}
		}
	}
	return append(out,
		"I'm \u212aidding", "we \u017fwitched to Kafka", "Budget is \u00a35", "I\tlive\tin\tBoston",
		"\xffI live in \xffBoston", "let\u2019s use Redis", "Decision\u2013 use Go", "my fianc\u00c9 is a nurse")
}

func TestRulesPrefilter(t *testing.T) {
	matched := 0
	for _, s := range prefilterTexts(t) {
		misses, n := extract.PrefilterMisses(s)
		matched += n
		for _, m := range misses {
			t.Errorf("prefilter of %s turns away %q, which it matches", m, s)
		}
	}
	if matched < 1000 {
		t.Errorf("the patterns matched %d times, want a test that tries them", matched)
	}
}

func FuzzPrefilter(f *testing.F) {
	// TestRulesPrefilter checks every text; a sixteenth of them seed the
	// fuzzer, so that go test does not run them all twice.
	for i, s := range prefilterTexts(f) {
		if i%16 == 0 {
			f.Add(s)
		}
	}
	f.Fuzz(func(t *testing.T, s string) {
		misses, _ := extract.PrefilterMisses(s)
		for _, m := range misses {
			t.Errorf("prefilter of %s turns away %q, which it matches", m, s)
		}
	})
}

func FuzzCutClauses(f *testing.F) {
	for _, s := range prefilterTexts(f) {
		f.Add(s)
	}
	for _, s := range []string{"", ",", "a, b", "a ,  b", "a,b", "x\t-\ty", "x - ", " so ", "so so so",
		"I moved BUT I \u017fo  hate it", "a  but", "x \u2013  y", "\u2014", "we stayed although it rained, whereas",
		"one but two so three because four although five though six while seven whereas eight - nine \u2013 ten \u2014 eleven"} {
		f.Add(s)
	}
	// cutClauses is this regexp's split, written out.
	re := regexp.MustCompile(`(?i),\s+|;\s+|:\s+|\s+[-–—]\s+|\s+(?:but|so|because|although|though|while|whereas)\s+`)
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := extract.CutClauses(s), re.Split(s, -1); !slices.Equal(got, want) {
			t.Errorf("CutClauses(%q) = %q, want %q", s, got, want)
		}
	})
}

// TestRulesAnswerChoices reads a short answer to another speaker's
// question as the choice it makes, and leaves chit-chat answers alone.
func TestRulesAnswerChoices(t *testing.T) {
	d := func(s string) []item { return []item{{tenure.StateDecision, s}} }
	cases := []struct {
		name, question, answer string
		want                   []item
	}{
		{"OK/contrast", "Which lab are we sending the bloods to this month?", "Greenfield Labs, not Idexx, their turnaround is faster.", d("Greenfield Labs, not Idexx")},
		{"OK/first_clause", "Should the open day be on a Saturday or a Sunday?", "Sunday, fewer people are working.", d("Sunday")},
		{"OK/then", "Which printer should we use for the mock-ups?", "Druckhaus Berg, then.", d("Druckhaus Berg")},
		{"OK/tail", "Fish or lamb for the main on the set menu?", "Lamb, the hake supply is unreliable.", d("Lamb for the main on the set menu")},
		{"OK/side", "Do we keep the free tier on the page or hide it?", "keep it", d("Keep the free tier on the page")},
		{"NoMatch/interjection", "Did you go to the lake or the beach?", "Wow, the beach was amazing!", nil},
		{"NoMatch/no_choice_asked", "How was the trip?", "Lisbon, then.", nil},
		// Round 7: the option a pick opens, in full; an answer that
		// repeats an option; a pick whose verb governs an option; "it"
		// in a choice between what was asked.
		{"OK/option_rest_place", "Reception: the boathouse at Ullswater or the hotel in town?", "The boathouse, it has a terrace.", d("The boathouse at Ullswater")},
		{"OK/option_rest_head", "Do we print glossy flyers or are postcards enough?", "Glossy, they look better.", d("Glossy flyers")},
		{"OK/shared_purpose_left", "Do we need a surveyor for the extension, or can we measure it ourselves?", "Surveyor then.", d("Surveyor")},
		{"OK/repeats_option", "Should we keep the old server in the rack or recycle it?", "Keep the old server in the rack, we need the spares.", d("Keep the old server in the rack")},
		{"NoMatch/short_verb", "Should the quiz be on paper, or can teams use their phones?", "Let them use, it's quicker.", nil},
		{"OK/pick_verb", "Should the menu be fixed, or can guests choose their courses?", "Let them choose, it's friendlier.", d("Let them choose their courses")},
		{"OK/it_in_choice", "Should we send the agenda before the call or share it live?", "OK, we'll send it before the call rather than sharing it live.", d("Send the agenda before the call rather than sharing it live")},
		// Round 8: the option named by the stems of the pick's words,
		// said as the option's verb phrase, after the question's topic,
		// or with what the option says of its purpose.
		{"OK/verb_option", "Are we keeping the lane swim at 6:30 or pushing it to 7?", "6:30 stays.", d("Keep the lane swim at 6:30")},
		{"OK/parallel_word", "Should we repaint the cave wall grey or white?", "White, it shows the holds better.", d("Repaint the cave wall white")},
		{"OK/topic_list", "What are we doing about the changing room lockers, coin or app?", "Coin. The app ones jam.", d("The changing room lockers: Coin")},
		{"OK/inflected", "Would a paper waiver or a tablet check-in work better at the front desk?", "Tablet check-ins, the paper ones get lost.", d("Tablet check-ins at the front desk")},
		{"OK/restated", "Should I plan one shared vegetarian main with fish added on the side, or two separate meals?", "One shared main with fish on the side.", d("One shared main with fish on the side")},
		// A verb that asks what the listener wants is no part of the
		// option.
		{"OK/wish_verb", "Would you like a replacement or a refund?", "A replacement please.", d("A replacement")},
		{"NoMatch/statement", "Love that purple color! For walking or running?", "Thanks! These are for running.", nil},
		{"NoMatch/other_number", "Are we running two courses or one this year?", "One course.", nil},
		{"NoMatch/more_words", "Should we repaint the cave wall grey or white?", "The cave wall needs more than paint, honestly.", nil},
	}
	r := extract.NewRules(extract.RulesOptions{})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			q := tenure.Message{ThreadID: "t", ID: "m1", Role: "user", Speaker: "Ana", Content: tc.question, CreatedAt: monday}
			res := extractBatch(t, r, extract.Batch{ThreadID: "t", Messages: []tenure.Message{q, say("m2", tc.answer)}})
			var got []item
			for _, c := range res.Items {
				if slices.Contains(c.Item.Refs, "m2") {
					got = append(got, item{c.Item.Type, c.Item.Text})
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("items of %q after %q (-want +got):\n%s", tc.answer, tc.question, diff)
			}
		})
	}
}

// TestRulesSetAside: a decision that takes one side of the either-or
// question before it records the other sides as its alternatives, without
// the words that ask; one that takes no side or both records none.
func TestRulesSetAside(t *testing.T) {
	cases := []struct {
		name, question, answer string
		want                   []string
	}{
		{"OK/wish_verb", "Would you like a replacement or a refund?", "A replacement please.", []string{"a refund"}},
		{"OK/second_side", "Sorry about that. Would you like a replacement or a refund?", "A refund, please.", []string{"a replacement"}},
		{"OK/verb_option", "Are we keeping the lane swim at 6:30 or pushing it to 7?", "6:30 stays.", []string{"pushing it to 7"}},
		{"OK/repeats_option", "Should we keep the old server in the rack or recycle it?", "Keep the old server in the rack, we need the spares.", []string{"recycle it"}},
		{"OK/left_side_last_words", "Should the open day be on a Saturday or a Sunday?", "Sunday.", []string{"on a Saturday"}},
		{"None/subject_only", "Should the open day be on a Saturday or a Sunday?", "Let's move the open day to the hall.", nil},
		{"None/no_question", "The replacement ships Monday.", "Let's go with the express courier.", nil},
		{"None/other_side_word", "Should the open day be on a Saturday or a Sunday?", "We decided to hold the open day on Saturday and Sunday.", nil},
	}
	r := extract.NewRules(extract.RulesOptions{})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			q := tenure.Message{ThreadID: "t", ID: "m1", Role: "assistant", Content: tc.question, CreatedAt: monday}
			res := extractBatch(t, r, extract.Batch{ThreadID: "t", Messages: []tenure.Message{q, say("m2", tc.answer)}})
			var got []string
			n := 0
			for _, c := range res.Items {
				if c.Item.Type == tenure.StateDecision && slices.Contains(c.Item.Refs, "m2") {
					got, n = append(got, c.Item.Alternatives...), n+1
				}
			}
			if n == 0 {
				t.Fatalf("no decision in %q", tc.answer)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("alternatives of %q after %q (-want +got):\n%s", tc.answer, tc.question, diff)
			}
		})
	}
}

// TestRulesFactsAcrossMessages reads "he" in a speaker's message as the
// relative their previous message named, and only then.
func TestRulesFactsAcrossMessages(t *testing.T) {
	r := extract.NewRules(extract.RulesOptions{})
	first := say("m1", "My husband's picking up the crutches on Saturday.")
	for _, tc := range []struct {
		name string
		next tenure.Message
		want []fact
	}{
		{"OK/same_speaker", say("m2", "He's a paramedic with the county ambulance service."),
			[]fact{{"Sam's husband", "works_at", "the county ambulance service"}, {"Sam's husband", "job", "paramedic"}}},
		{"NoMatch/other_speaker", tenure.Message{ThreadID: "t", ID: "m2", Role: "user", Speaker: "Ana", Content: "He's a paramedic with the county ambulance service.", CreatedAt: monday}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := extractBatch(t, r, extract.Batch{ThreadID: "t", Messages: []tenure.Message{first, tc.next}})
			var got []fact
			for _, f := range res.Facts {
				if slices.Contains(f.Refs, "m2") {
					got = append(got, fact{f.Subject, f.Attribute, f.Value})
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("facts of %q (-want +got):\n%s", tc.next.Content, diff)
			}
		})
	}
}
