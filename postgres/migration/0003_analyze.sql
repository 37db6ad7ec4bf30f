-- Planner statistics on demand. The application role may not ANALYZE
-- tables it does not own, and autovacuum analyzes a table only after a
-- good part of it changed: a freshly loaded table (a new tenant's import,
-- an evaluation's store) would be planned as if it held one row until
-- then, with full scans where an index answers. The store calls this,
-- which runs as the tables' owner, after appends that grew the messages
-- substantially (see Store.analyzeDue).
CREATE FUNCTION tenure_analyze() RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
BEGIN
    ANALYZE messages;
    ANALYZE objects;
END
$$;
REVOKE ALL ON FUNCTION tenure_analyze() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION tenure_analyze() TO tenure_app;
