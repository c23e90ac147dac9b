# A client written the way fuzzy.ai's Python library was: requests, a session with the key in
# an Authorization header, the evaluation id read with r.headers.get('x-evaluation-id').
# Usage: /usr/bin/python3 fuzzy_client.py BASE_URL ; prints one JSON object of what it saw.
import json
import sys

import requests


class FuzzyClient:
    def __init__(self, root, key):
        self.root = root.rstrip('/')
        self.session = requests.Session()
        self.session.headers.update({'Authorization': 'Bearer ' + key})

    def _json(self, method, path, body=None):
        r = self.session.request(method, self.root + path, json=body)
        return r

    def new_agent(self, agent):
        r = self._json('POST', '/agent', agent)
        r.raise_for_status()
        return r.json()

    def evaluate(self, agent_id, inputs):
        r = self._json('POST', '/agent/' + agent_id, inputs)
        r.raise_for_status()
        return r.json(), r.headers.get('x-evaluation-id')

    def feedback(self, evaluation_id, data):
        r = self._json('POST', '/evaluation/' + evaluation_id + '/feedback', data)
        r.raise_for_status()
        return r.json()

    def evaluation(self, evaluation_id):
        r = self._json('GET', '/evaluation/' + evaluation_id)
        r.raise_for_status()
        return r.json()

    def delete_agent(self, agent_id):
        return self._json('DELETE', '/agent/' + agent_id)


def main(root):
    key = requests.post(root.rstrip('/') + '/account', json={'name': 'python'}).json()['apiKey']
    client = FuzzyClient(root, key)
    agent = client.new_agent({
        'name': 'tipping',
        'inputs': {'service': {'poor': [0, 5], 'good': [0, 5, 10], 'excellent': [5, 10]}},
        'outputs': {'tip': {'low': [0, 5, 10], 'medium': [10, 15, 20], 'high': [20, 25, 30]}},
        'rules': ['IF service IS poor THEN tip IS low', 'IF service IS good THEN tip IS medium',
                  'IF service IS excellent THEN tip IS high'],
    })
    single, single_id = client.evaluate(agent['id'], {'service': 5})
    batch, batch_ids = client.evaluate(agent['id'], [{'service': 5}, {'service': 10}])
    feedback = client.feedback(single_id, {'satisfaction': 4})
    log = client.evaluation(single_id)
    deleted = client.delete_agent(agent['id'])
    after = client._json('POST', '/agent/' + agent['id'], {'service': 5})
    print(json.dumps({
        'single': single, 'single_id': single_id,
        'batch': batch, 'batch_ids': batch_ids.split(','),
        'feedback': feedback, 'log_input': log['input'], 'log_crisp': log['crisp'],
        'deleted': deleted.status_code, 'after_delete': after.status_code,
        'after_delete_error': after.json()['error'],
    }))


if __name__ == '__main__':
    main(sys.argv[1])
