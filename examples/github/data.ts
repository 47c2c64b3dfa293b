/**
 * The GitHub-shaped example's records, as its API answers them: snake_case keys, numeric ids,
 * nested `owner` / `user` / `license` objects (an embedded account is `{login, id, type}` only), label objects, `assignee_ids` (a list of foreign
 * keys), events whose `type` names their kind (`PushEvent`, `IssuesEvent`, `WatchEvent`), issue
 * comments, and pull requests, which GitHub lists as issues carrying a `pull_request` key.
 */
export interface GhUser {
  readonly id: number;
  readonly login: string;
  readonly type: 'User' | 'Organization';
  readonly name: string;
  readonly company: string | null;
  readonly location: { readonly city: string; readonly country: string } | null;
}

export const GH_USERS: readonly GhUser[] = [
  { id: 1, login: 'octocat', type: 'User', name: 'The Octocat', company: '@github', location: { city: 'San Francisco', country: 'US' } },
  { id: 2, login: 'hubot', type: 'User', name: 'Hubot', company: null, location: null },
  { id: 3, login: 'monalisa', type: 'User', name: 'Mona Lisa Octocat', company: 'Louvre', location: { city: 'Paris', country: 'FR' } },
];

const owner = (login: string) => {
  const u = GH_USERS.find((x) => x.login === login)!;
  return { login: u.login, id: u.id, type: u.type };
};

export const GH_REPOS = [
  {
    id: 101,
    name: 'hello-world',
    full_name: 'octocat/hello-world',
    owner: owner('octocat'),
    stargazers_count: 2600,
    topics: ['example', 'git'],
    license: { key: 'mit', name: 'MIT License' },
  },
  {
    id: 102,
    name: 'spoon-knife',
    full_name: 'octocat/spoon-knife',
    owner: owner('octocat'),
    stargazers_count: 12000,
    topics: ['fork', 'example'],
    license: null,
  },
  {
    id: 103,
    name: 'hubot-scripts',
    full_name: 'hubot/hubot-scripts',
    owner: owner('hubot'),
    stargazers_count: 3500,
    topics: ['chatops'],
    license: { key: 'mit', name: 'MIT License' },
  },
  {
    id: 104,
    name: 'smile',
    full_name: 'monalisa/smile',
    owner: owner('monalisa'),
    stargazers_count: 42,
    topics: [],
    license: { key: 'cc0-1.0', name: 'Creative Commons Zero v1.0 Universal' },
  },
];

export const GH_ISSUES = [
  {
    repo: 'octocat/hello-world',
    number: 1,
    title: 'Found a bug',
    state: 'open',
    user: owner('monalisa'),
    labels: [{ name: 'bug', color: 'd73a4a' }],
    assignee_ids: [1, 2],
  },
  {
    repo: 'octocat/hello-world',
    number: 2,
    title: 'Improve the docs',
    state: 'open',
    user: owner('hubot'),
    labels: [{ name: 'docs', color: '0075ca' }],
    assignee_ids: [3],
  },
  { repo: 'octocat/hello-world', number: 3, title: 'Old question', state: 'closed', user: owner('monalisa'), labels: [], assignee_ids: [] },
  {
    repo: 'octocat/hello-world',
    number: 4,
    title: 'Fix the bug',
    state: 'open',
    user: owner('octocat'),
    labels: [{ name: 'bug', color: 'd73a4a' }],
    assignee_ids: [],
    pull_request: { merged_at: null },
  },
  {
    repo: 'hubot/hubot-scripts',
    number: 7,
    title: 'Add a weather script',
    state: 'open',
    user: owner('octocat'),
    labels: [{ name: 'enhancement', color: 'a2eeef' }],
    assignee_ids: [2],
  },
];

export const GH_EVENTS = [
  { repo: 'octocat/hello-world', id: '9001', type: 'PushEvent', actor: owner('octocat'), payload: { ref: 'refs/heads/main', size: 2 } },
  {
    repo: 'octocat/hello-world',
    id: '9002',
    type: 'IssuesEvent',
    actor: owner('monalisa'),
    payload: { action: 'opened', issue: { number: 1 } },
  },
  { repo: 'octocat/hello-world', id: '9003', type: 'WatchEvent', actor: owner('hubot'), payload: { action: 'started' } },
];

/** Comments by repository and issue number, oldest first (the service pages them, two a page). */
export const GH_COMMENTS: ReadonlyArray<{
  readonly repo: string;
  readonly issue: number;
  readonly id: number;
  readonly body: string;
  readonly user: ReturnType<typeof owner>;
}> = [
  { repo: 'octocat/hello-world', issue: 1, id: 501, body: 'Me too', user: owner('hubot') },
  { repo: 'octocat/hello-world', issue: 1, id: 502, body: 'Which version?', user: owner('octocat') },
  { repo: 'octocat/hello-world', issue: 1, id: 503, body: 'The latest', user: owner('monalisa') },
];

/** Repositories renamed since: GitHub answers the old name with a 301 to /repositories/ID. */
export const GH_RENAMED: ReadonlyMap<string, number> = new Map([['octocat/old-hello', 101]]);
