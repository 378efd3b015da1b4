import { apiError, type Answer, type MeiliStub, type Task } from './api';

/**
 * The stub's one task queue, like Meilisearch's: writes are enqueued and processed in order,
 * each after `stub.taskDelayMs`; `stub.onTaskDone` runs once after a document task took
 * effect, before it shows as succeeded.
 */
export function createTaskQueue(stub: Pick<MeiliStub, 'taskDelayMs' | 'onTaskDone'>) {
  const tasks: Task[] = [];
  const queue: Task[] = [];
  let processing = false;
  let timer: NodeJS.Timeout | null = null;

  function enqueue(indexUid: string | null, type: string, apply: Task['apply']) {
    const task: Task = {
      uid: tasks.length,
      indexUid,
      type,
      status: 'enqueued',
      error: null,
      enqueuedAt: new Date().toISOString(),
      startedAt: null,
      finishedAt: null,
      apply,
    };
    tasks.push(task);
    queue.push(task);
    schedule();
    return { taskUid: task.uid, indexUid, status: 'enqueued', type, enqueuedAt: task.enqueuedAt };
  }

  function schedule() {
    if (processing || queue.length === 0) return;
    processing = true;
    const task = queue.shift()!;
    task.status = 'processing';
    task.startedAt = new Date().toISOString();
    // never rejects: what the task or the hook throws fails the task
    const run = async () => {
      timer = null;
      let status: Task['status'] = 'succeeded';
      try {
        const failure = task.apply();
        // the hook runs after the task took effect, before anyone can see it finished
        const hook = stub.onTaskDone;
        if (failure) {
          status = 'failed';
          task.error = apiError(failure.code, failure.message, failure.type);
        } else if (hook && task.type.startsWith('document')) {
          stub.onTaskDone = null;
          await hook({ uid: task.uid, type: task.type });
        }
      } catch (err) {
        status = 'failed';
        task.error = apiError('internal', String(err), 'internal');
      }
      task.status = status;
      task.finishedAt = new Date().toISOString();
      processing = false;
      schedule();
    };
    timer = setTimeout(() => void run(), stub.taskDelayMs);
  }

  return {
    /** enqueues a write: the 202 body */
    enqueue,
    /** GET /tasks/:uid */
    show(uid: number): Answer {
      const t = tasks[uid];
      if (!t) return { status: 404, body: apiError('task_not_found', 'task not found') };
      const { apply: _apply, ...view } = t;
      return {
        status: 200,
        body: { ...view, batchUid: t.uid, canceledBy: null, details: {}, duration: null },
      };
    },
    pending: () => queue.length + (processing ? 1 : 0),
    stop() {
      if (timer) clearTimeout(timer);
    },
  };
}

export type TaskQueue = ReturnType<typeof createTaskQueue>;
