import { useDetectionTests } from '../api/detections';
import { Badge, DataTable, Loadable } from '../ui';

/**
 * A detection's own tests (GET /api/code-detections/{id}/tests): those its Sigma text carries
 * (`tests:`, written by `rampart apply` from `spec.tests`). They run on each read against the rule
 * as stored, so what is shown is the result of their last run; "Run again" runs them once more.
 */
export function DetectionTests({ id }: { id: string }) {
  const tests = useDetectionTests(id);
  const passed = tests.data?.tests.filter((x) => x.passed).length ?? 0;
  return (
    <section aria-labelledby="tests-h">
      <h2 id="tests-h">Tests</h2>
      <Loadable query={tests}>
        {(d) => (
          <>
            <div className="copy-row">
              <p role="status" aria-live="polite">
                {d.tests.length === 0 ? 'No tests: add `tests: [{name, event | events, expect: match | no_match}]` to the rule.' : `${passed} of ${d.tests.length} tests pass`}
              </p>
              <button type="button" onClick={() => void tests.refetch()} disabled={tests.isFetching}>{tests.isFetching ? 'Running…' : 'Run again'}</button>
            </div>
            {d.errors.length > 0 && <ul className="error" aria-label="Malformed tests">{d.errors.map((e) => <li key={e}>{e}</li>)}</ul>}
            {d.tests.length > 0 && (
              <DataTable head={<><th scope="col">Test</th><th scope="col">Expects</th><th scope="col">Result</th><th scope="col">Events: matched selections</th></>}>
                {d.tests.map((x) => (
                  <tr key={x.index}>
                    <th scope="row">{x.name}</th>
                    <td>{x.expect === 'match' ? 'match' : 'no match'}</td>
                    <td><Badge value={x.passed ? 'passed' : 'failed'} />{x.failingIndex !== null && <div className="muted small">decided by event {x.failingIndex + 1}</div>}</td>
                    <td>
                      <ul className="plain">
                        {x.events.map((e) => (
                          <li key={e.index}>
                            Event {e.index + 1}: {e.matched ? 'matched' : 'not matched'}
                            {e.matchedSelections.length > 0 && <> (<span className="mono">{e.matchedSelections.join(', ')}</span>)</>}
                          </li>
                        ))}
                      </ul>
                    </td>
                  </tr>
                ))}
              </DataTable>
            )}
          </>
        )}
      </Loadable>
    </section>
  );
}
