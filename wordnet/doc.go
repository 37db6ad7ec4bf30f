// Package wordnet answers questions about English words from a compact
// table derived from WordNet 3.0 (Princeton University; its licence is
// in LICENSE.wordnet): the base forms of a word, regular and irregular
// ("children" → "child", "went" → "go"); whether two words share one of
// their most frequent senses ("kids" and "children"); the lexicographer
// class of a word's most frequent sense ("landlord" is noun.person,
// "committee" noun.group); whether two words are derivationally related
// through their first senses ("sue" and "lawsuit", "expire" and
// "expiry").
//
// The table keeps each lemma's first three senses (WordNet orders them by
// frequency), so rare senses never make two words synonyms. It is
// embedded in the binary and unpacked on first use (4.0 MB of text);
// nothing is read from disk or the network. Regenerate it with
//
//	apt-get install wordnet-base
//	go run ./wordnet/internal/gen -dict /usr/share/wordnet -out wordnet/wordnet.tsv.gz
package wordnet
