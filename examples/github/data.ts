/**
 * The GitHub-shaped example's records, as its API answers them: snake_case keys, numeric ids,
 * nested `owner` / `user` / `license` objects, label objects, `assignee_ids` (a list of foreign
 * keys), and events whose `type` names their kind (`PushEvent`, `IssuesEvent`, `WatchEvent`).
 */
export interface GhUser {
  readonly id: number;
  readonly login: string;
  readonly name: string;
  readonly company: string | null;
  readonly location: { readonly city: string; readonly country: string } | null;
}

export const GH_USERS: readonly GhUser[] = [
  { id: 1, login: 'octocat', name: 'The Octocat', company: '@github', location: { city: 'San Francisco', country: 'US' } },
  { id: 2, login: 'hubot', name: 'Hubot', company: null, location: null },
  { id: 3, login: 'monalisa', name: 'Mona Lisa Octocat', company: 'Louvre', location: { city: 'Paris', country: 'FR' } },
];

const owner = (login: string) => {
  const u = GH_USERS.find((x) => x.login === login)!;
  return { login: u.login, id: u.id };
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
