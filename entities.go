package tenure

// EntityFactsQuery asks a store for the facts of entity cards: for each
// entity ref, its memories pinned or of effective importance
// ImportanceSignificant or more that the principal may read in the scope,
// whatever a compilation's query retrieved (see the compiler's entity
// cards).
type EntityFactsQuery struct {
	Principal Principal
	Scope     Scope
	// Refs are the entity refs ("person:john_doe") whose facts are wanted.
	Refs []string
}

// NameExpansion is a name of a compilation's query that denotes an entity
// of a registry the principal reads, with the other names of that entity
// (its label, surface forms and aliases) the compilation searches for too.
type NameExpansion struct {
	// Name is the query's words that named the entity.
	Name string `json:"name"`
	// Entity is the entity's id in its registry.
	Entity string `json:"entity"`
	// Names are the entity's other names added to the search.
	Names []string `json:"names"`
}

// NameQuery asks a store which names of a compilation's query denote
// entities of the registries the principal reads for the scope.
type NameQuery struct {
	Principal Principal
	Scope     Scope
	Text      string
}
