package extract

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/slot"
	"github.com/tenure-dev/tenure/temporal"
)

// RulesSource is the Source the Rules extractor sets on the items it
// produces.
const RulesSource = "rules"

// DefaultUserName is the fact subject of a user message with no speaker.
const DefaultUserName = "user"

// RulesOptions configures a Rules extractor. The zero value is ready.
type RulesOptions struct {
	// Resolve finds the relative temporal expressions of a text and
	// resolves them against ref, the time the text was written. Nil means
	// temporal.New().Resolve.
	Resolve func(text string, ref time.Time) []tenure.ResolvedDate
	// UserName is the subject of facts stated in a user message that has
	// no speaker. Empty means DefaultUserName.
	UserName string
	// UserSpeakers names speakers whose first-person statements are about
	// a person even when their messages have another role than "user"
	// (conversations imported with a human speaker in the assistant role).
	UserSpeakers []string
}

// Rules is the deterministic extractor: it needs no model, reads each
// message sentence by sentence and keeps only what a fixed set of patterns
// recognises, preferring to miss an item over inventing one. It holds no
// state; one Rules is safe for concurrent use.
type Rules struct {
	resolve      func(string, time.Time) []tenure.ResolvedDate
	userName     string
	userSpeakers []string
}

var _ Extractor = (*Rules)(nil)

// Name returns "rules", the Source of the items Rules produces.
func (r *Rules) Name() string { return RulesSource }

// NewRules returns a Rules extractor with o's defaults filled in.
func NewRules(o RulesOptions) *Rules {
	r := &Rules{resolve: o.Resolve, userName: o.UserName, userSpeakers: slices.Clone(o.UserSpeakers)}
	if r.resolve == nil {
		r.resolve = temporal.New().Resolve
	}
	if r.userName == "" {
		r.userName = DefaultUserName
	}
	return r
}

// Extract reads b's messages in order and returns the decisions,
// constraints, actions, questions and risks they state, and the profile
// and people facts their human speakers state about themselves and the
// people they know. It reads message content, not attachment captions
// (a caption describes an image; it states nothing), and skips system and
// tool messages. The same batch always yields the same result. Errors:
// tenure.CodeTimeout when ctx ends first.
func (r *Rules) Extract(ctx context.Context, b Batch) (Result, error) {
	var res Result
	acc := newAccumulator()
	pair := speakerPair(b.Messages)
	changes := newChangeTargets(b.Existing)
	var prev *messageContext
	for i := range b.Messages {
		if err := ctx.Err(); err != nil {
			return Result{}, &tenure.Error{Code: tenure.CodeTimeout, Message: "extract rules", Err: err}
		}
		m := &b.Messages[i]
		if m.Role == "system" || m.Role == "tool" {
			continue
		}
		if m.ID == "" {
			// What a message without an id states cannot be cited.
			res.Drop("no_valid_refs")
			continue
		}
		mc := r.newMessageContext(b.Messages, i, pair)
		if prev != nil {
			mc.lastOrg, mc.lastOrgAge = prev.org, 1
			if mc.lastOrg == "" {
				mc.lastOrg, mc.lastOrgAge = prev.lastOrg, prev.lastOrgAge+1
			}
		}
		if prev != nil && prev.msg.Speaker == m.Speaker && prev.msg.Role == m.Role {
			// "My husband's picking up the crutches." "He's a paramedic
			// ...": a speaker's next message goes on about whom the last
			// one named.
			mc.relation, mc.relSubject, mc.person, mc.org = prev.relation, prev.relSubject, prev.person, prev.org
			mc.ours = prev.ours
		}
		prev = mc
		var prevS sentence
		prevFound := true
		add := func(c Candidate) {
			acc.addItem(c, &res)
			changes.add(c.Item)
			prevFound = true
		}
		for _, s := range explainedWorries(splitSentences(r.thenAsDate(m.Content, m.CreatedAt))) {
			if len(s.text) > maxSentenceBytes {
				continue
			}
			if settledRe.MatchString(s.text) && !prevFound {
				// "Then one camera and we shoot the scenes twice.
				// That's settled.": the remark makes a choice of what
				// the sentence before said.
				if f, ok := settledChoice(mc, prevS); ok {
					acc.addItem(r.candidate(mc, b, f), &res)
				}
			}
			prevS, prevFound = s, false
			for _, part := range coordinated(s) {
				if f, old, ok := r.matchChange(mc, part, changes); ok {
					c := r.candidate(mc, b, f)
					c.Item.Subject, c.Item.TopicTags, c.Supersedes = old.Subject, old.TopicTags, old.UID
					add(c)
					continue
				}
				f, ok := r.matchItem(mc, part)
				if !ok && !part.question {
					// "Do we have a rollback plan?" "Not yet, I'll write
					// one by Thursday": the pronoun is what was asked
					// about.
					np := askedAbout(mc)
					if np == "" && alternativeRe.MatchString(part.text) {
						// "OK, we'll send it ahead rather than holding it
						// back": a choice about what was asked.
						np = choiceAskedAbout(mc)
					}
					if np != "" {
						if t := pronounObjectRe.ReplaceAllString(part.text, "${1}"+np+"${2}"); t != part.text {
							part.text = t
							f, ok = r.matchItem(mc, part)
						}
					}
				}
				if ok {
					add(r.candidate(mc, b, f))
				}
			}
			for _, f := range r.matchFacts(mc, s) {
				acc.addFact(f)
			}
		}
	}
	res.Items, res.Facts = acc.items, acc.facts
	return res, nil
}

// maxBefore is how many messages before a message the patterns may read
// for what it answers.
const maxBefore = 3

// maxSentenceBytes is the longest sentence the patterns read. Longer
// "sentences" are pasted logs, code or lists without punctuation, where a
// pattern's match would be noise, and skipping them bounds the cost of a
// huge message.
const maxSentenceBytes = 1000

// messageContext is what the patterns need to know about one message.
type messageContext struct {
	msg *tenure.Message
	// next is the message that follows in the batch, nil for the last.
	next *tenure.Message
	// before are the messages just before, nearest last (at most
	// maxBefore).
	before []tenure.Message
	// human is set when the speaker is a person, so that first-person
	// statements are facts about them and commitments are theirs.
	human bool
	// subject is whom first-person facts are about.
	subject string
	// joking is set when the message disowns itself ("kidding", "jk").
	joking bool
	// relation is the last relative named in the message ("sister"), and
	// relSubject whose it is ("Caroline's sister"), for resolving a
	// following "she" or "he".
	relation, relSubject string
	// person is the last person the message named by name ("Julia
	// Park"), for the same; it is cleared when a relative is named.
	person string
	// org is the last organisation the message named, for a following
	// "they": "Dunmore Estates is a family business, they've been letting
	// since 1986".
	org string
	// lastOrg is the last organisation a message before this one named,
	// whoever spoke it, for "their": "Kestrel Motors, our parts supplier,
	// ..." "Their manager, Ciara Byrne, ...".
	lastOrg string
	// lastOrgAge is how many messages back lastOrg was named.
	lastOrgAge int
	// ours is the organisation the speaker said is theirs ("we're
	// Loomwork"), whom a "we" clause may be about.
	ours string
	// sentenceName is the name the message's last sentence named, for a
	// "they" that opens the next one.
	sentenceName string
	// addressee is whom "you" means: the other speaker of a two-person
	// conversation, or "".
	addressee string
	// batch is the batch's messages, whose speakers may be addressed by
	// name.
	batch []tenure.Message
	// answer caches writtenAnswer: 0 not read yet, 1 a turn, 2 a
	// written answer.
	answer int8
}

func (r *Rules) newMessageContext(msgs []tenure.Message, i int, pair [2]string) *messageContext {
	m := &msgs[i]
	mc := &messageContext{msg: m, subject: m.Speaker, joking: jokingRe.MatchString(m.Content), batch: msgs}
	switch m.Speaker {
	case "":
	case pair[0]:
		mc.addressee = pair[1]
	case pair[1]:
		mc.addressee = pair[0]
	}
	if i+1 < len(msgs) {
		mc.next = &msgs[i+1]
	}
	mc.before = msgs[max(0, i-maxBefore):i]
	mc.human = m.Role == "user" || (m.Speaker != "" && slices.Contains(r.userSpeakers, m.Speaker))
	if mc.subject == "" {
		mc.subject = r.userName
	}
	return mc
}

// speakerPair returns the two speakers of a conversation between exactly
// two named speakers, or two empty names.
func speakerPair(msgs []tenure.Message) [2]string {
	var pair [2]string
	for i := range msgs {
		switch sp := msgs[i].Speaker; {
		case sp == "" || sp == pair[0] || sp == pair[1]:
		case pair[0] == "":
			pair[0] = sp
		case pair[1] == "":
			pair[1] = sp
		default:
			return [2]string{}
		}
	}
	if pair[1] == "" {
		return [2]string{}
	}
	return pair
}

// found is an item a pattern recognised in a sentence.
type found struct {
	typ    tenure.StateType
	text   string
	conf   tenure.Confidence
	status string
	// owner is who is to do an action, when the sentence says.
	owner string
	// due is an action's due date when the text does not say it with a
	// deadline word (a task moved "to May 18").
	due string
}

// candidate turns a recognised item into a candidate of the batch: its
// relative dates made explicit, its subject and value parsed from its
// text, and an action's owner and due date set.
func (r *Rules) candidate(mc *messageContext, b Batch, f found) Candidate {
	said := f.text
	var due string
	switch f.typ {
	case tenure.StateAction, tenure.StateConstraint:
		f.text, due = r.datesExplicit(f.text, mc.msg.CreatedAt)
	case tenure.StateDecision:
		// "We've booked the barn for the 20th": the date the choice
		// names, read away from the message, is the same date.
		f.text, _ = r.datesExplicit(f.text, mc.msg.CreatedAt)
	}
	status := f.status
	if status == "" {
		status = tenure.DefaultStateStatus(f.typ)
	}
	it := tenure.StateItem{
		Type:       f.typ,
		Text:       f.text,
		Status:     status,
		Confidence: f.conf,
		TopicTags:  topicTags(f.text, b.Messages),
		Refs:       []string{mc.msg.ID},
		Source:     RulesSource,
		ThreadID:   b.ThreadID,
	}
	if f.typ == tenure.StateAction {
		if due == "" {
			due = f.due
		}
		it.Owner, it.Due = f.owner, due
	}
	if f.typ == tenure.StateDecision {
		it.Alternatives = setAside(mc, said)
		if it.Alternatives == nil {
			it.Alternatives = statedAlternatives(said)
		}
	}
	it.Subject, it.Value = slot.Parse(it.Type, it.Text)
	it.Coerce()
	return Candidate{Item: it}
}

// accumulator collects a batch's candidates and facts, folding repeats into
// the first occurrence so that an item stated twice carries both refs.
type accumulator struct {
	items  []Candidate
	facts  []Fact
	byUID  map[string]int
	byFact map[string]int
}

func newAccumulator() *accumulator {
	return &accumulator{byUID: map[string]int{}, byFact: map[string]int{}}
}

func (a *accumulator) addItem(c Candidate, res *Result) {
	if err := c.Item.Validate(); err != nil {
		res.Drop("invalid")
		return
	}
	if i, ok := a.byUID[c.Item.UID]; ok {
		prev := &a.items[i].Item
		prev.Refs = appendNew(prev.Refs, c.Item.Refs...)
		prev.Confidence = tenure.MaxConfidence(prev.Confidence, c.Item.Confidence)
		prev.Status = tenure.MergeStateStatus(prev.Type, prev.Status, c.Item.Status)
		if a.items[i].Supersedes == "" {
			a.items[i].Supersedes = c.Supersedes
		}
		return
	}
	a.byUID[c.Item.UID] = len(a.items)
	a.items = append(a.items, c)
}

func (a *accumulator) addFact(f Fact) {
	key := fmt.Sprintf("%s\x00%s\x00%s", lower(f.Subject), f.Attribute, lower(f.Value))
	if i, ok := a.byFact[key]; ok {
		prev := &a.facts[i]
		prev.Refs = appendNew(prev.Refs, f.Refs...)
		prev.Confidence = tenure.MaxConfidence(prev.Confidence, f.Confidence)
		return
	}
	a.byFact[key] = len(a.facts)
	a.facts = append(a.facts, f)
}

func appendNew(dst []string, src ...string) []string {
	for _, s := range src {
		if !slices.Contains(dst, s) {
			dst = append(dst, s)
		}
	}
	return dst
}
