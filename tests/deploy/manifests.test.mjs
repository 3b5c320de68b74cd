// deploy/kubernetes validated offline: Kubernetes kinds against kubernetes-models' schemas (the
// API's own OpenAPI definitions), Agones kinds against agones.schema.json with the pod template
// inside checked as a Kubernetes PodTemplateSpec; what the manifests ask of herd-server (its
// flags and variables, its port) is what the binary offers; and the relays are wired to the world
// (their upstream is the world's Service, probes on /healthz, the autoscaler on their Deployment).
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
  for (const k of ['Deployment', 'Service', 'PersistentVolumeClaim', 'Fleet', 'FleetAutoscaler', 'HorizontalPodAutoscaler']) assert.ok(kinds.has(k), k);
  assert.ok(all.some(({ file }) => file === 'relays.yaml'), 'relays.yaml is read');
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
  for (const { doc } of manifests().filter(({ doc }) => doc.kind === 'Deployment')) {
    const deployment = structuredClone(doc);
    deployment.spec.replicas = 'one';
    assert.ok(problems(deployment).length > 0, doc.metadata.name);
  }
  const hpa = manifests().find(({ doc }) => doc.kind === 'HorizontalPodAutoscaler').doc;
  const noTarget = structuredClone(hpa);
  delete noTarget.spec.scaleTargetRef;
  assert.ok(problems(noTarget).length > 0);
  const wordy = structuredClone(hpa);
  wordy.spec.maxReplicas = 'twenty';
  assert.ok(problems(wordy).length > 0);
});

test('what the manifests ask of herd-server is what it offers', () => {
  const help = execFileSync(server, ['--help'], { encoding: 'utf8' });
  const all = manifests();
  const containers = all.flatMap(({ doc }) => {
    if (doc.kind === 'Deployment') return doc.spec.template.spec.containers;
    if (doc.kind === 'Fleet') return doc.spec.template.spec.template.spec.containers;
    return [];
  });
  assert.equal(containers.length, 3);
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

// The port a ws:// or wss:// URL names, its scheme's default when it names none.
function portOf(url) {
  return Number(url.port || (url.protocol === 'wss:' ? 443 : 80));
}

// What relays.yaml must hold for relays to work at all; each returns its problems as sentences.
function relayProblems(all) {
  const out = [];
  const named = (kind, name) => all.find(({ doc }) => doc.kind === kind && doc.metadata?.name === name)?.doc;
  const world = named('Deployment', 'herd');
  const worldService = all.find(({ file, doc }) => file === 'world.yaml' && doc.kind === 'Service')?.doc;
  const relay = all.find(({ file, doc }) => file === 'relays.yaml' && doc.kind === 'Deployment')?.doc;
  const hpa = all.find(({ file, doc }) => file === 'relays.yaml' && doc.kind === 'HorizontalPodAutoscaler')?.doc;
  if (!world || !worldService) out.push('world.yaml has no Deployment herd or no Service');
  if (!relay) return [...out, 'relays.yaml has no Deployment'];
  const container = relay.spec.template.spec.containers[0];
  const upstream = (container.env || []).find((e) => e.name === 'HERD_RELAY')?.value;
  if (!upstream) out.push('the relay has no HERD_RELAY');
  else if (worldService) {
    const url = new URL(upstream);
    if (!['ws:', 'wss:'].includes(url.protocol)) out.push(`HERD_RELAY ${upstream} is not a ws:// URL`);
    if (url.hostname !== worldService.metadata.name) out.push(`HERD_RELAY ${upstream} is not the world's Service ${worldService.metadata.name}`);
    if (!worldService.spec.ports.some((p) => p.port === portOf(url))) out.push(`HERD_RELAY ${upstream}: the Service ${worldService.metadata.name} has no port ${portOf(url)}`);
    if (url.pathname !== '/ws') out.push(`HERD_RELAY ${upstream} does not end in /ws`);
  }
  // The relay's one link commands with the world's token: from the world's Secret, never a value
  // of its own (which the world would refuse).
  const tokens = (container.env || []).filter((e) => e.name === 'HERD_COMMAND_TOKEN');
  if (tokens.some((t) => t.valueFrom?.secretKeyRef?.name !== 'herd-command-token')) out.push('the relay\'s command token is not the world\'s Secret herd-command-token');
  for (const probe of ['readinessProbe', 'livenessProbe']) {
    if (container[probe]?.httpGet?.path !== '/healthz') out.push(`the relay's ${probe} is not on /healthz`);
  }
  const ports = container.ports || [];
  const http = ports.find((p) => p.name === 'http');
  if (!http || String(http.containerPort) !== (container.env || []).find((e) => e.name === 'HERD_PORT')?.value) out.push('the relay\'s port http is not HERD_PORT');
  const service = all.find(({ file, doc }) => file === 'relays.yaml' && doc.kind === 'Service')?.doc;
  const labels = relay.spec.template.metadata.labels;
  if (!service) out.push('relays.yaml has no Service');
  else if (!Object.entries(service.spec.selector || {}).every(([k, v]) => labels[k] === v)) out.push('the relay Service does not select the relay pods');
  else if (world && Object.entries(service.spec.selector).every(([k, v]) => world.spec.template.metadata.labels[k] === v)) out.push('the relay Service also selects the world');
  if (!hpa) return [...out, 'relays.yaml has no HorizontalPodAutoscaler'];
  const ref = hpa.spec.scaleTargetRef || {};
  if (ref.kind !== 'Deployment' || ref.apiVersion !== 'apps/v1' || ref.name !== relay.metadata.name) out.push(`the HPA targets ${ref.apiVersion} ${ref.kind} ${ref.name}, not the relay Deployment`);
  if (!(hpa.spec.minReplicas >= 2)) out.push(`the HPA's minReplicas ${hpa.spec.minReplicas} is below 2`);
  if (!(hpa.spec.maxReplicas >= (hpa.spec.minReplicas ?? 1))) out.push('the HPA\'s maxReplicas is below its minReplicas');
  const viewers = (hpa.spec.metrics || []).find((m) => m.type === 'Pods' && m.pods?.metric?.name === 'herd_viewers');
  if (!viewers || viewers.pods.target.type !== 'AverageValue') out.push('the HPA does not scale on herd_viewers per pod');
  return out;
}

test('the relays follow the world and scale on their viewers', () => {
  assert.deepEqual(relayProblems(manifests()), []);
});

test('the relay checks catch broken relays', () => {
  const all = manifests();
  const relayIndex = all.findIndex(({ file, doc }) => file === 'relays.yaml' && doc.kind === 'Deployment');
  const hpaIndex = all.findIndex(({ doc }) => doc.kind === 'HorizontalPodAutoscaler');
  const env = (doc) => doc.spec.template.spec.containers[0].env;
  const broken = (index, change) => {
    const copy = structuredClone(all);
    change(copy[index].doc);
    return relayProblems(copy);
  };
  const cases = {
    'no HERD_RELAY': [relayIndex, (d) => { d.spec.template.spec.containers[0].env = env(d).filter((e) => e.name !== 'HERD_RELAY'); }],
    'another host': [relayIndex, (d) => { env(d).find((e) => e.name === 'HERD_RELAY').value = 'ws://herd-world:80/ws'; }],
    'the pod port, not the Service port': [relayIndex, (d) => { env(d).find((e) => e.name === 'HERD_RELAY').value = 'ws://herd:8080/ws'; }],
    'the relay itself': [relayIndex, (d) => { env(d).find((e) => e.name === 'HERD_RELAY').value = 'ws://herd-relay:80/ws'; }],
    'a token of its own': [relayIndex, (d) => { env(d).push({ name: 'HERD_COMMAND_TOKEN', value: 'x' }); }],
    'readiness elsewhere': [relayIndex, (d) => { d.spec.template.spec.containers[0].readinessProbe.httpGet.path = '/'; }],
    'no liveness probe': [relayIndex, (d) => { delete d.spec.template.spec.containers[0].livenessProbe; }],
    'liveness over TCP': [relayIndex, (d) => { d.spec.template.spec.containers[0].livenessProbe = { tcpSocket: { port: 'http' } }; }],
    'the HPA on the world': [hpaIndex, (d) => { d.spec.scaleTargetRef.name = 'herd'; }],
    'the HPA on a StatefulSet': [hpaIndex, (d) => { d.spec.scaleTargetRef.kind = 'StatefulSet'; }],
    'one replica': [hpaIndex, (d) => { d.spec.minReplicas = 1; }],
    'minReplicas left out (Kubernetes defaults it to 1)': [hpaIndex, (d) => { delete d.spec.minReplicas; }],
  };
  for (const [name, [index, change]] of Object.entries(cases)) assert.ok(broken(index, change).length > 0, name);
});
