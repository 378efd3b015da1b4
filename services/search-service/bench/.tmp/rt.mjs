import pg from 'pg';
for (const cs of ['postgres://postgres@127.0.0.1:5432/exp', 'postgres://postgres@%2Fvar%2Frun%2Fpostgresql:5432/exp']) {
  const c = new pg.Client({ connectionString: cs }); await c.connect();
  for (let i = 0; i < 500; i++) await c.query({ name: 's1', text: 'SELECT $1::int', values: [1] });
  const cpu0 = process.cpuUsage(); const t = performance.now();
  for (let i = 0; i < 5000; i++) await c.query({ name: 's1', text: 'SELECT $1::int', values: [1] });
  const el = (performance.now() - t) / 5000; const cpu = process.cpuUsage(cpu0);
  console.log(cs.split('@')[1], 'rt us', (el * 1000).toFixed(0), 'node cpu us/query', ((cpu.user + cpu.system) / 5000).toFixed(0), 'sys', (cpu.system / 5000).toFixed(0));
  await c.end();
}
