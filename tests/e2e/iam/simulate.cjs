// Evaluates IAM requests against identity policies with @cloud-copilot/iam-simulate.
//
// stdin:  {"principal": "<role ARN>", "accountId": "...", "policies": [{"name": ..., "policy": {...}}],
//          "requests": [{"id": ..., "action": "ec2:CreateFleet", "resource": "<ARN or *>",
//                        "context": {"aws:RequestTag/k": "v", ...}}]}
// stdout: one JSON array: [{"id": ..., "result": "Allowed" | "ImplicitlyDenied" | "ExplicitlyDenied" | "Error",
//          "allowedBy": ["<policy>/<Sid>"], "candidates": [{"statement": "<policy>/<Sid>", "failed": "..."}],
//          "errors": "...", "ignoredContextKeys": [...]}]
// candidates are, for a denied request, the statements whose Action matches it and what failed.
// Run by tests/e2e/iam.go with NODE_PATH pointing at the cached node_modules.
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
      entry.candidates = (single.analysis.identityAnalysis.unmatchedStatements || [])
        .filter((s) => s.actionMatch)
        .map((s) => ({
          statement: `${s.policyId}/${s.statement.Sid || '?'}`,
          failed: !s.resourceMatch ? 'resource' : (s.explain.conditions || []).filter((c) => !c.matches)
            .map((c) => `${c.operator} ${c.conditionKeyValue}${c.failedBecauseMissing ? ' (not in the request)' : ''}`).join('; '),
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
