/**
 * The blog's deterministic in-memory data: 20 users, 60 posts, 120 comments. The same on every
 * start, so examples, docs and tests can name concrete ids. Ids are JSON numbers (as most REST
 * services send them); keys are snake_case (`author_id`, `post_id`).
 */
export interface UserRecord {
  readonly id: number;
  readonly name: string;
  readonly username: string;
  readonly email: string;
}

export interface PostRecord {
  readonly id: number;
  readonly author_id: number;
  readonly title: string;
  readonly body: string;
  readonly created_at: string;
}

export interface CommentRecord {
  readonly id: number;
  readonly post_id: number;
  readonly author_id: number;
  readonly body: string;
}

const FIRST_NAMES = ['Ada', 'Alan', 'Barbara', 'Claude', 'Donald', 'Edsger', 'Frances', 'Grace', 'Hedy', 'John'];
const LAST_NAMES = ['Lovelace', 'Turing', 'Liskov', 'Shannon', 'Knuth', 'Dijkstra', 'Allen', 'Hopper', 'Lamarr', 'Backus'];
const TOPICS = ['batching', 'caching', 'GraphQL', 'REST', 'latency', 'queues', 'indexes', 'retries', 'pools', 'timeouts'];

export const USER_COUNT = 20;
export const POST_COUNT = 60;

function makeUsers(): UserRecord[] {
  const users: UserRecord[] = [];
  for (let id = 1; id <= USER_COUNT; id++) {
    const first = FIRST_NAMES[(id - 1) % FIRST_NAMES.length];
    const last = LAST_NAMES[(id * 3) % LAST_NAMES.length];
    const username = `${first}.${last}${id}`.toLowerCase();
    users.push({ id, name: `${first} ${last}`, username, email: `${username}@blog.example` });
  }
  return users;
}

/** Post p is written by user ((p - 1) mod 20) + 1, so every user has exactly 3 posts. */
function makePosts(): PostRecord[] {
  const posts: PostRecord[] = [];
  for (let id = 1; id <= POST_COUNT; id++) {
    const topic = TOPICS[(id - 1) % TOPICS.length];
    const day = String(((id - 1) % 28) + 1).padStart(2, '0');
    posts.push({
      id,
      author_id: ((id - 1) % USER_COUNT) + 1,
      title: `Notes on ${topic} #${id}`,
      body: `Post ${id} is about ${topic}.`,
      created_at: `2024-0${((id - 1) % 9) + 1}-${day}T12:00:00Z`,
    });
  }
  return posts;
}

/** Post p has (p mod 5) comments, so every fifth post (5, 10, …) has none. */
function makeComments(): CommentRecord[] {
  const comments: CommentRecord[] = [];
  let id = 1;
  for (let postId = 1; postId <= POST_COUNT; postId++) {
    for (let n = 0; n < postId % 5; n++) {
      comments.push({
        id,
        post_id: postId,
        author_id: ((postId * 3 + n * 7) % USER_COUNT) + 1,
        body: `Comment ${n + 1} on post ${postId}.`,
      });
      id++;
    }
  }
  return comments;
}

export const USERS: readonly UserRecord[] = makeUsers();
export const POSTS: readonly PostRecord[] = makePosts();
export const COMMENTS: readonly CommentRecord[] = makeComments();
