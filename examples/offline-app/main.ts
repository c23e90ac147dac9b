// Registers fuzzbox's worker (put into the build by fuzzbox/vite), then talks to the REST
// interface it answers, online or offline, with the typed client.
import { FuzzyClient, registerFuzzyWorker } from 'fuzzbox/client';
import './style.css';

const status = document.querySelector('#status')!;

async function start(): Promise<void> {
  await registerFuzzyWorker(`${import.meta.env.BASE_URL}fuzzbox-sw.js`);

  // One account and one agent per browser, kept in localStorage (the service keeps them in IndexedDB).
  let apiKey = localStorage.getItem('example:apiKey');
  if (!apiKey) {
    ({ apiKey } = await new FuzzyClient().createAccount('offline example'));
    localStorage.setItem('example:apiKey', apiKey);
  }
  const fuzzy = new FuzzyClient({ apiKey });
  let agentID = localStorage.getItem('example:agentID');
  if (!agentID) {
    ({ id: agentID } = await fuzzy.createAgent({
      name: 'fan',
      inputs: { temperature: { cold: [0, 10, 20], hot: [10, 20, 30] } },
      outputs: { speed: { slow: [0, 25, 50], fast: [50, 75, 100] } },
      rules: ['IF temperature IS cold THEN speed IS slow', 'IF temperature IS hot THEN speed IS fast'],
    }));
    localStorage.setItem('example:agentID', agentID);
  }

  const { outputs } = await fuzzy.evaluate(agentID, { temperature: 12 });
  document.querySelector('#speed')!.textContent = String(outputs.speed);
  status.textContent = navigator.onLine ? 'Ready' : 'Ready, offline';
}

start().catch((error: unknown) => {
  status.textContent = `Failed: ${error instanceof Error ? error.message : String(error)}`;
});
