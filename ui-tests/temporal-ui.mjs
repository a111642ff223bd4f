#!/usr/bin/env node
// Checks, in headless Chromium, what an operator sees of a NodeSet in the Temporal Web UI (2.42):
//
//   node ui-tests/temporal-ui.mjs <ui-address> <nodeset ns/name> <node workflow id> <screenshot dir>
//        [--phase ready] [--nodes node/default/e2e-0,node/default/e2e-1] [--timeout 90]
//
// 1. The workflows list filtered by TandemNodeSet="<nodeset>" (the ?query= of the list page, as the
//    filter bar writes it) lists the NodeSet's workflow (nodeset/<nodeset>) and the node workflow
//    (and exactly the --nodes ids, if given), and nothing but that NodeSet's workflows.
// 2. That workflow's page, opened from the list: the User Metadata tab shows its summary ("Slurm node
//    <pod> of NodeSet <nodeset>") and its current details ("phase <phase>; ..."); the Search
//    Attributes tab shows TandemPhase = <phase> (and TandemNodeSet = <nodeset>).
// Screenshots: 1-list.png, 2-workflow.png (User Metadata), 3-search-attributes.png, and
// failure.png when a check fails. Exit 0 when every check passed; 1 with "FAIL: ..." otherwise;
// 2 on bad arguments. Every wait is bounded; the whole run by --timeout seconds.
//
// Chromium is Debian's (/usr/bin/chromium, or $CHROMIUM); playwright-core (pinned in
// package-lock.json) only drives it and downloads no browser.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';

const USAGE =
  'usage: node temporal-ui.mjs <ui-address> <nodeset ns/name> <node workflow id> <screenshot dir>' +
  ' [--phase ready] [--nodes id,id] [--timeout seconds]';

function parseArgs(argv) {
  const pos = [];
  const opt = { phase: 'ready', nodes: [], timeout: 90 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--phase' || a === '--nodes' || a === '--timeout') {
      const v = argv[++i];
      if (v === undefined) usage(`${a} needs a value`);
      if (a === '--phase') opt.phase = v;
      if (a === '--nodes') opt.nodes = v.split(',').filter((s) => s);
      if (a === '--timeout') opt.timeout = Number(v);
    } else if (a.startsWith('--')) {
      usage(`unknown option ${a}`);
    } else {
      pos.push(a);
    }
  }
  if (pos.length !== 4) usage('four arguments expected');
  const [ui, nodeSet, workflowId, shots] = pos;
  if (!/^https?:\/\//.test(ui)) usage(`the UI address must be http://host:port, not ${ui}`);
  if (!/^[^/]+\/[^/]+$/.test(nodeSet)) usage(`the NodeSet must be <namespace>/<name>, not ${nodeSet}`);
  if (!(opt.timeout > 0)) usage('--timeout must be a positive number of seconds');
  return { ui: ui.replace(/\/+$/, ''), nodeSet, workflowId, shots, ...opt };
}

function usage(why) {
  console.error(`temporal-ui: ${why}\n${USAGE}`);
  process.exit(2);
}

class CheckFailed extends Error {}

const args = parseArgs(process.argv.slice(2));
const [k8sNamespace, nodeSetName] = args.nodeSet.split('/');
const pod = args.workflowId.split('/').pop();
const expected = {
  summary: `Slurm node ${pod} of NodeSet ${args.nodeSet}`,
  details: `phase ${args.phase}`,
  nodeSetWorkflow: `nodeset/${args.nodeSet}`,
  listed: [...new Set([`nodeset/${args.nodeSet}`, args.workflowId, ...args.nodes])],
  nodePrefix: `node/${k8sNamespace}/${nodeSetName}-`,
};
const temporalNamespace = 'default';
const started = Date.now();
const deadline = started + args.timeout * 1000;
const STEP_MS = 15_000; // one navigation or one click
const executablePath = process.env.CHROMIUM || '/usr/bin/chromium';

// The last resort: whatever hangs (the browser, a wait Playwright does not bound), the run ends.
const watchdog = setTimeout(() => {
  console.error(`FAIL: the whole run took over ${args.timeout + 30} s; stopped`);
  process.exit(1);
}, (args.timeout + 30) * 1000);

function log(msg) {
  console.log(`temporal-ui: [${((Date.now() - started) / 1000).toFixed(1)}s] ${msg}`);
}

function left() {
  return Math.max(0, deadline - Date.now());
}

/**
 * Calls probe until it returns { ok: true, seen }, within limitMs (and the run's deadline); every
 * few rounds reloads the page if asked. Returns seen; on timeout fails with the last thing seen.
 */
async function poll(what, limitMs, probe, page, reload = false) {
  const from = Date.now();
  const until = Math.min(from + limitMs, deadline);
  let last;
  for (let round = 0; ; round++) {
    try {
      const { ok, seen } = await probe();
      if (ok) return seen;
      last = seen === undefined ? 'not yet' : JSON.stringify(seen);
    } catch (e) {
      last = e.message.split('\n')[0];
    }
    if (Date.now() >= until) {
      throw new CheckFailed(`${what}: not seen within ${Math.round((until - from) / 1000)} s (last: ${last})`);
    }
    await page.waitForTimeout(Math.min(1000, Math.max(0, until - Date.now())));
    if (reload && round % 3 === 2) {
      await page.reload({ waitUntil: 'domcontentloaded', timeout: STEP_MS });
    }
  }
}

async function shot(page, name) {
  const file = path.join(args.shots, name);
  await page.screenshot({ path: file, timeout: STEP_MS });
  log(`screenshot ${file}`);
}

/** The workflow ids of the list page's rows, from their links (…/workflows/<id>/<run id>/…). */
async function listedWorkflowIds(page) {
  const hrefs = await page
    .getByRole('row')
    .getByRole('link')
    .evaluateAll((links) => links.map((l) => l.getAttribute('href') || ''));
  const ids = new Set();
  const re = new RegExp(`^/namespaces/${temporalNamespace}/workflows/([^/?]+)/[^/?]+`);
  for (const h of hrefs) {
    const m = re.exec(h);
    if (m) ids.add(decodeURIComponent(m[1]));
  }
  return [...ids];
}

/**
 * The text rendered in the User Metadata block headed `heading`: markdown in an iframe (titled
 * "output") of the nearest element around the heading that holds one, or that block's own text.
 */
async function metadataText(page, heading) {
  const h = page.getByRole('heading', { name: heading, exact: true });
  if ((await h.count()) !== 1) return `(${await h.count()} headings "${heading}")`;
  const block = h.locator('xpath=ancestor::*[.//iframe][1]');
  if ((await block.count()) === 1 && (await block.getByRole('heading').count()) === 1) {
    const text = await block.locator('iframe').first().contentFrame().locator('body').innerText({ timeout: 2000 });
    return text.trim();
  }
  return (await h.locator('xpath=../..').innerText({ timeout: 2000 })).replace(heading, '').trim();
}

async function click(locator, what) {
  try {
    await locator.click({ timeout: Math.min(STEP_MS, left()) });
  } catch (e) {
    throw new CheckFailed(`could not click ${what}: ${e.message.split('\n')[0]}`);
  }
}

/** A tab of the workflow page (History, User Metadata, Search Attributes, ...). */
async function openTab(page, name) {
  await click(page.getByRole('tab', { name, exact: true }), `the tab "${name}" of ${args.workflowId}`);
}

async function checkList(page) {
  const query = `TandemNodeSet="${args.nodeSet}"`;
  const url = `${args.ui}/namespaces/${temporalNamespace}/workflows?query=${encodeURIComponent(query)}`;
  log(`list: ${url}`);
  await page.goto(url, { waitUntil: 'domcontentloaded', timeout: STEP_MS });
  // The filter bar shows the query it applies (as a chip: TandemNodeSet = "default/e2e").
  await poll(`the filter TandemNodeSet = "${args.nodeSet}" on the workflows list`, 20_000, async () => {
    const main = await page.locator('main').innerText({ timeout: 2000 });
    return { ok: main.includes('TandemNodeSet') && main.includes(`"${args.nodeSet}"`) };
  }, page);
  // Visibility is eventually consistent: reload until every expected workflow is listed.
  const ids = await poll(
    `workflows ${expected.listed.join(', ')} listed under ${query}`,
    45_000,
    async () => {
      const got = await listedWorkflowIds(page);
      return { ok: expected.listed.every((id) => got.includes(id)), seen: got };
    },
    page,
    true,
  );
  const nodes = ids.filter((id) => id.startsWith(expected.nodePrefix));
  const strangers = ids.filter((id) => id !== expected.nodeSetWorkflow && !nodes.includes(id));
  if (strangers.length) {
    throw new CheckFailed(
      `the list filtered by ${query} shows workflows that are not ${args.nodeSet}'s: ${strangers.join(', ')}`,
    );
  }
  if (args.nodes.length && nodes.length !== args.nodes.length) {
    throw new CheckFailed(
      `expected exactly the nodes ${args.nodes.join(', ')} under ${query}, the list shows ${nodes.join(', ')}`,
    );
  }
  log(`listed: ${ids.join(', ')}`);
  await shot(page, '1-list.png');
}

async function checkWorkflow(page) {
  // Open it from the list, as an operator would.
  log(`open ${args.workflowId}`);
  await click(page.getByRole('link', { name: args.workflowId, exact: true }).first(), `the link ${args.workflowId}`);
  await poll(`the page of ${args.workflowId}`, 20_000, async () => ({
    ok:
      page.url().includes(`/workflows/${encodeURIComponent(args.workflowId)}/`) &&
      (await page.getByRole('heading', { name: args.workflowId, exact: true }).count()) > 0,
    seen: page.url(),
  }), page);

  await openTab(page, 'User Metadata');
  await poll(`the summary "${expected.summary}" (User Metadata tab)`, 20_000, async () => {
    const t = await metadataText(page, 'Summary');
    return { ok: t === expected.summary, seen: t };
  }, page);
  // Current details are the answer of a query to a worker (__temporal_workflow_metadata): fetched
  // when the tab opens, so reload until a worker answered.
  const details = await poll(
    `current details with "${expected.details}" (User Metadata tab)`,
    30_000,
    async () => {
      const t = await metadataText(page, 'Current Details');
      return { ok: t.startsWith(expected.details), seen: t };
    },
    page,
    true,
  );
  log(`summary "${expected.summary}", current details "${details}"`);
  await shot(page, '2-workflow.png');

  await openTab(page, 'Search Attributes');
  await poll(`search attribute TandemPhase = "${args.phase}" (Search Attributes tab)`, 20_000, async () => {
    const t = (await page.locator('main').innerText({ timeout: 2000 })).replace(/\s+/g, ' ');
    const phase = /"TandemPhase": "([^"]*)"/.exec(t)?.[1];
    return {
      ok: phase === args.phase && t.includes(`"TandemNodeSet": "${args.nodeSet}"`),
      seen: phase === undefined ? 'no TandemPhase' : `TandemPhase "${phase}"`,
    };
  }, page, true);
  log(`search attributes: TandemPhase "${args.phase}", TandemNodeSet "${args.nodeSet}"`);
  await shot(page, '3-search-attributes.png');
}

async function main() {
  if (!fs.existsSync(executablePath)) {
    throw new CheckFailed(
      `no Chromium at ${executablePath}: apt-get install -y --no-install-recommends chromium (or set CHROMIUM)`,
    );
  }
  fs.mkdirSync(args.shots, { recursive: true });
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'tandem-ui-chromium-'));
  let context;
  let page;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath,
      headless: true,
      timeout: 30_000,
      viewport: { width: 1280, height: 720 },
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.setDefaultTimeout(STEP_MS);
    page.setDefaultNavigationTimeout(STEP_MS);
    await checkList(page);
    await checkWorkflow(page);
    log(`all checks passed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } catch (e) {
    if (page) {
      await page
        .content()
        .then((html) => fs.writeFileSync(path.join(args.shots, 'failure.html'), html))
        .catch(() => {});
      await page
        .screenshot({ path: path.join(args.shots, 'failure.png'), timeout: 5000 })
        .then(() => console.error(`temporal-ui: page at failure: ${page.url()} (${path.join(args.shots, 'failure.png')})`))
        .catch(() => {});
    }
    throw e;
  } finally {
    if (context) await context.close().catch(() => {});
    fs.rmSync(profile, { recursive: true, force: true });
  }
}

main().then(
  () => {
    clearTimeout(watchdog);
    process.exit(0);
  },
  (e) => {
    console.error(e instanceof CheckFailed ? `FAIL: ${e.message}` : `FAIL: ${e.stack || e}`);
    process.exit(1);
  },
);
