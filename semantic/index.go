package semantic

import (
	"context"
	"strings"

	"github.com/tenure-dev/tenure"
)

// Backlog selects the messages Index embeds: those without a vector of
// Model, of every tenant (Tenant empty), of a tenant, or of one thread of
// a tenant; with Reader set, only those the reader can read (its own and
// the shared ones). Unembedded reads them Limit at a time after sequence
// number After.
type Backlog struct {
	Model  string
	Tenant string
	Thread string
	Reader *string
	// ReaderPersona, with Reader, also leaves out the messages of personas
	// other than this one (empty: those of any persona).
	ReaderPersona string
	After         int64
	Limit         int
}

// Pending is a message without a vector: its sequence number in the store
// and the message (TenantID set).
type Pending struct {
	Seq     int64
	Message tenure.Message
}

// Vector is an embedding to store: the hash of the text sent and its unit
// vector.
type Vector struct {
	Hash   Hash
	Values []float32
}

// Link gives a message the vector of a text by its hash; Refused records
// instead that the endpoint refused its text (or that it has none), so
// that it is not sent again for this model.
type Link struct {
	Seq     int64
	Hash    Hash
	Refused bool
}

// Store holds messages and their vectors.
type Store interface {
	// CountUnembedded counts the messages b selects (After and Limit
	// aside) that have no vector of b.Model and no refusal recorded.
	CountUnembedded(ctx context.Context, b Backlog) (int, error)
	// Unembedded returns up to b.Limit of them with a sequence number
	// after b.After, in sequence order.
	Unembedded(ctx context.Context, b Backlog) ([]Pending, error)
	// KnownVectors returns which of hashes have a vector of model.
	KnownVectors(ctx context.Context, model string, hashes []Hash) (map[Hash]bool, error)
	// PutVectors stores vecs (a hash stored already is kept) and links,
	// all in one transaction.
	PutVectors(ctx context.Context, model string, vecs []Vector, links []Link) error
}

// Report says what an Index did.
type Report struct {
	Model string `json:"model"`
	// Embedded counts the messages given a vector, Cached those of them
	// whose text had one already (nothing sent).
	Embedded int `json:"embedded"`
	Cached   int `json:"cached"`
	// Sent counts the texts sent, in Requests calls of the endpoint.
	Sent     int `json:"sent"`
	Requests int `json:"requests"`
	// KeptLocal counts the messages whose text the policy keeps from the
	// endpoint; Refused those whose text the endpoint refused or that
	// have none (both stay without a vector).
	KeptLocal int `json:"kept_local"`
	Refused   int `json:"refused"`
	// Left counts the messages left without a vector when the endpoint
	// failed: the next Index embeds them.
	Left int `json:"left"`
}

// indexPage is how many pending messages Index reads at a time.
const indexPage = 1000

// Index embeds the messages b selects that have no vector yet (b.Model is
// the model's name), BatchSize texts per call, storing each batch's
// vectors as it comes back, and reports progress (done, total) after each
// (nil: none). A text with a vector of the model already is sent no more;
// a message of a tenant or of a kind the policy keeps local is never
// sent, and a tenant's backlog is not even read. When the endpoint fails,
// Index returns what it did with Left set and the error; what it stored
// stays. A text the endpoint refuses (CodeInvalid, CodeTooLarge) is sent
// again alone; refused alone, it is recorded as refused and the others
// are embedded. During the cooldown after the endpoint failed, Index
// fails at once, sending nothing.
func (m *Model) Index(ctx context.Context, st Store, b Backlog, progress func(done, total int)) (Report, error) {
	rep := Report{Model: m.opt.Name}
	if b.Tenant != "" && !m.SendsTenant(b.Tenant) {
		return rep, nil
	}
	b.Model, b.After, b.Limit = m.opt.Name, 0, indexPage
	total, err := st.CountUnembedded(ctx, b)
	if err != nil {
		return rep, err
	}
	if err := m.cooling(); err != nil && total > 0 {
		rep.Left = total
		return rep, err
	}
	done := 0
	report := func(n int) {
		done += n
		total = max(total, done)
		if progress != nil && n > 0 {
			progress(done, total)
		}
	}
	for {
		page, err := st.Unembedded(ctx, b)
		if err != nil {
			return rep, err
		}
		if len(page) == 0 {
			return rep, nil
		}
		b.After = page[len(page)-1].Seq
		if err := m.indexPage(ctx, st, page, &rep, report); err != nil {
			rep.Left = total - done
			return rep, err
		}
	}
}

// text is a distinct text of a page to embed and the messages it is.
type text struct {
	hash Hash
	s    string
	seqs []int64
}

// indexPage embeds a page of pending messages.
func (m *Model) indexPage(ctx context.Context, st Store, page []Pending, rep *Report, report func(int)) error {
	var texts []*text
	byHash := map[Hash]*text{}
	var links []Link
	kept := 0
	for i := range page {
		p := &page[i]
		if !m.sends(&p.Message) {
			kept++
			continue
		}
		s := p.Message.Text()
		if strings.TrimSpace(s) == "" {
			links = append(links, Link{Seq: p.Seq, Refused: true})
			continue
		}
		s = truncate(m.opt.DocumentPrefix+s, m.opt.MaxTextBytes)
		h := HashText(p.Message.TenantID, p.Message.UserID, s)
		t := byHash[h]
		if t == nil {
			t = &text{hash: h, s: s}
			byHash[h] = t
			texts = append(texts, t)
		}
		t.seqs = append(t.seqs, p.Seq)
	}
	rep.KeptLocal += kept
	report(kept)
	hashes := make([]Hash, len(texts))
	for i, t := range texts {
		hashes[i] = t.hash
	}
	known, err := st.KnownVectors(ctx, m.opt.Name, hashes)
	if err != nil {
		return err
	}
	rep.Refused += len(links)
	var missing []*text
	for _, t := range texts {
		if !known[t.hash] {
			missing = append(missing, t)
			continue
		}
		for _, seq := range t.seqs {
			links = append(links, Link{Seq: seq, Hash: t.hash})
		}
		rep.Embedded += len(t.seqs)
		rep.Cached += len(t.seqs)
	}
	if len(links) > 0 {
		if err := st.PutVectors(ctx, m.opt.Name, nil, links); err != nil {
			return err
		}
		report(len(links))
	}
	for start := 0; start < len(missing); start += m.opt.BatchSize {
		batch := missing[start:min(start+m.opt.BatchSize, len(missing))]
		ss := make([]string, len(batch))
		for i, t := range batch {
			ss[i] = t.s
		}
		vs, err := m.embedAll(ctx, ss, rep)
		if err != nil {
			return err
		}
		var vecs []Vector
		var put []Link
		for i, t := range batch {
			if vs[i] != nil {
				vecs = append(vecs, Vector{Hash: t.hash, Values: vs[i]})
				rep.Embedded += len(t.seqs)
			} else {
				rep.Refused += len(t.seqs)
			}
			for _, seq := range t.seqs {
				put = append(put, Link{Seq: seq, Hash: t.hash, Refused: vs[i] == nil})
			}
		}
		if err := st.PutVectors(ctx, m.opt.Name, vecs, put); err != nil {
			return err
		}
		report(len(put))
	}
	return nil
}

// embedAll embeds texts, halving a batch the endpoint refuses until the
// texts it refuses alone are found: their vectors are nil.
func (m *Model) embedAll(ctx context.Context, texts []string, rep *Report) ([][]float32, error) {
	rep.Requests++
	rep.Sent += len(texts)
	vs, err := m.embed(ctx, texts)
	switch code := tenure.ErrorCode(err); {
	case err == nil:
		return vs, nil
	case code != tenure.CodeInvalid && code != tenure.CodeTooLarge:
		return nil, err
	case len(texts) == 1:
		return [][]float32{nil}, nil
	}
	mid := len(texts) / 2
	a, err := m.embedAll(ctx, texts[:mid], rep)
	if err != nil {
		return nil, err
	}
	b, err := m.embedAll(ctx, texts[mid:], rep)
	if err != nil {
		return nil, err
	}
	return append(a, b...), nil
}
