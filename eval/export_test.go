package eval

// Exported for tests.
var (
	NDCG            = ndcg
	RankedRecallAll = rankedRecallAll
)
