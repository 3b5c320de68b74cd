// deploy/kubernetes validated offline: Kubernetes kinds against kubernetes-models' schemas (the
// API's own OpenAPI definitions), Agones kinds against agones.schema.json with the pod template
// inside checked as a Kubernetes PodTemplateSpec; and what the manifests ask of herd-server (its
// flags and variables, its port) is what the binary offers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import Ajv from 'ajv';

const require = createRequire(import.meta.url);
const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '..', '..');
const deploy = join(repo, 'deploy', 'kubernetes');
const server = process.env.HERD_SERVER || join(repo, 'build', 'herd-server');

const kubernetes = {
  'v1/Service': require('kubernetes-models/v1/Service').Service,
  'v1/PersistentVolumeClaim': require('kubernetes-models/v1/PersistentVolumeClaim').PersistentVolumeClaim,
  'apps/v1/Deployment': require('kubernetes-models/apps/v1/Deployment').Deployment,
  'autoscaling/v2/HorizontalPodAutoscaler': require('kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler').HorizontalPodAutoscaler,
};
const { PodTemplateSpec } = require('kubernetes-models/v1/PodTemplateSpec');
const agonesSchema = JSON.parse(readFileSync(join(here, 'agones.schema.json'), 'utf8'));
const ajv = new Ajv({ allErrors: true, strict: false });
ajv.addSchema(agonesSchema, 'agones');
const agones = {
  'agones.dev/v1/Fleet': ajv.getSchema('agones#/$defs/Fleet'),
  'autoscaling.agones.dev/v1/FleetAutoscaler': ajv.getSchema('agones#/$defs/FleetAutoscaler'),
};

// Every problem with one document, as sentences; empty when it is valid.
function problems(doc) {
  const key = `${doc.apiVersion}/${doc.kind}`;
  if (kubernetes[key]) {
    try {
      new kubernetes[key](doc).validate();
      return [];
    } catch (e) {
      return [e.message];
    }
  }
  if (agones[key]) {
    const validate = agones[key];
    const out = validate(doc) ? [] : validate.errors.map((e) => `${e.instancePath} ${e.message}`);
    const pod = doc.kind === 'Fleet' ? doc.spec?.template?.spec?.template : undefined;
    if (pod) {
      try {
        new PodTemplateSpec(pod).validate();
      } catch (e) {
        out.push(`pod template: ${e.message}`);
      }
    }
    return out;
  }
  return [`no schema for ${key}`];
}

function manifests() {
  return readdirSync(deploy)
    .filter((f) => f.endsWith('.yaml'))
    .flatMap((f) => parseAllDocuments(readFileSync(join(deploy, f), 'utf8')).map((d) => ({ file: f, doc: d.toJSON() })));
}

test('every manifest validates against its kind\'s schema', () => {
  const all = manifests();
  const kinds = new Set(all.map(({ doc }) => doc.kind));
  for (const k of ['Deployment', 'Service', 'PersistentVolumeClaim', 'Fleet', 'FleetAutoscaler']) assert.ok(kinds.has(k), k);
  for (const { file, doc } of all) assert.deepEqual(problems(doc), [], `${file}: ${doc.kind} ${doc.metadata?.name}`);
});

test('the schemas catch broken manifests (so a clean result means something)', () => {
  const fleet = manifests().find(({ doc }) => doc.kind === 'Fleet').doc;
  const broken = structuredClone(fleet);
  broken.spec.template.spec.ports[0].portPolicy = 'Dynamik';
  broken.spec.template.spec.template.spec.containers[0].ports = [{ containerPort: 'http' }];
  assert.equal(problems(broken).length, 2, problems(broken).join('; '));
  const scaler = structuredClone(manifests().find(({ doc }) => doc.kind === 'FleetAutoscaler').doc);
  delete scaler.spec.policy.buffer;
  assert.ok(problems(scaler).length > 0);
  const deployment = structuredClone(manifests().find(({ doc }) => doc.kind === 'Deployment').doc);
  deployment.spec.replicas = 'one';
  assert.ok(problems(deployment).length > 0);
});

test('what the manifests ask of herd-server is what it offers', () => {
  const help = execFileSync(server, ['--help'], { encoding: 'utf8' });
  const all = manifests();
  const containers = all.flatMap(({ doc }) => {
    if (doc.kind === 'Deployment') return doc.spec.template.spec.containers;
    if (doc.kind === 'Fleet') return doc.spec.template.spec.template.spec.containers;
    return [];
  });
  assert.equal(containers.length, 2);
  for (const c of containers) {
    for (const a of (c.args || []).filter((x) => x.startsWith('--'))) assert.ok(help.includes(`  ${a} `), `${a} is a herd-server flag`);
    for (const e of c.env || []) assert.ok(help.includes(e.name), `${e.name} is a herd-server variable`);
    assert.equal(c.env.find((e) => e.name === 'HERD_PORT').value, '8080');
  }
  const fleet = all.find(({ doc }) => doc.kind === 'Fleet').doc;
  assert.equal(fleet.spec.template.spec.ports[0].containerPort, 8080);
  assert.ok(fleet.spec.template.spec.template.spec.containers[0].args.includes('--agones'));
  // Agones marks a server Unhealthy when no Health comes within a period: herd's interval is shorter.
  const interval = Number(fleet.spec.template.spec.template.spec.containers[0].args.at(-1));
  assert.ok(interval < fleet.spec.template.spec.health.periodSeconds);
  const scaler = all.find(({ doc }) => doc.kind === 'FleetAutoscaler').doc;
  assert.equal(scaler.spec.fleetName, fleet.metadata.name);
});
