// Evaluates IAM requests against identity policies, and a resource policy where given, with
// @cloud-copilot/iam-simulate.
//
// stdin:  {"principal": "<role ARN, OIDC provider ARN or service principal>", "accountId": "...",
//          "policies": [{"name": ..., "policy": {...}}], "resourcePolicy": {...} (optional: a queue
//          policy, a role's trust policy),
//          "requests": [{"id": ..., "action": "ec2:CreateFleet", "resource": "<ARN or *>",
//                        "context": {"aws:RequestTag/k": "v", ...}}]}
// stdout: one JSON array: [{"id": ..., "result": "Allowed" | "ImplicitlyDenied" | "ExplicitlyDenied" | "Error",
//          "allowedBy": ["<policy>/<Sid>"], "candidates": [{"statement": "<policy>/<Sid>", "failed": "..."}],
//          "errors": "...", "ignoredContextKeys": [...]}]
// candidates are, for a denied request, the statements (identity and resource policy) whose Action
// matches it and what failed: the principal, the resource, or each condition with the values it
// asks for.
// Run by tests/e2e/lab/authorization.go with NODE_PATH pointing at the cached node_modules.
const { runSimulation, getGrantReasons } = require('@cloud-copilot/iam-simulate');

async function main() {
  const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
  const out = [];
  for (const req of input.requests) {
    const sim = {
      request: {
        principal: input.principal,
        action: req.action,
        resource: { resource: req.resource, accountId: input.accountId },
        contextVariables: req.context || {},
      },
      identityPolicies: input.policies,
      serviceControlPolicies: [],
      resourceControlPolicies: [],
    };
    if (input.resourcePolicy) sim.resourcePolicy = input.resourcePolicy;
    const r = await runSimulation(sim, {});
    if (r.resultType === 'error') {
      out.push({ id: req.id, result: 'Error', errors: JSON.stringify(r.errors) });
      continue;
    }
    const single = r.resultType === 'single' ? r.result : r.results[0];
    const entry = { id: req.id, result: r.overallResult, ignoredContextKeys: single ? single.ignoredContextKeys : [] };
    if (single && r.overallResult === 'Allowed') {
      entry.allowedBy = getGrantReasons(single.analysis).map((g) => `${g.policyIdentifier}/${g.statementId || '#' + g.statementIndex}`);
    } else if (single) {
      const unmatched = [
        ...((single.analysis.identityAnalysis || {}).unmatchedStatements || []),
        ...((single.analysis.resourceAnalysis || {}).unmatchedStatements || []).map((s) => ({ ...s, policyId: s.policyId || 'resource policy' })),
      ];
      const asked = (c) => [c.values].flat().map((v) => JSON.stringify(v.value)).join(', ');
      entry.candidates = unmatched
        .filter((s) => s.actionMatch)
        .map((s) => ({
          statement: `${s.policyId}/${s.statement.Sid || '?'}`,
          failed: s.principalMatch && s.principalMatch !== 'Match' && s.principalMatch !== 'NotApplicable'
            ? `principal (the statement names ${JSON.stringify(s.statement.Principal)})`
            : !s.resourceMatch ? 'resource' : (s.explain.conditions || []).filter((c) => !c.matches)
              .map((c) => `${c.operator} ${c.conditionKeyValue} ${asked(c)}${c.failedBecauseMissing ? ' (not in the request)' : ''}`).join('; '),
        }));
    }
    out.push(entry);
  }
  process.stdout.write(JSON.stringify(out));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
