<?php
// PHP cURL code as fuzzy.ai's PHP client had it: headers collected from the raw header lines
// with CURLOPT_HEADERFUNCTION into an array keyed by name as sent, read as
// $headers['X-Evaluation-ID']. Usage: php fuzzy_client.php BASE_URL ; prints one JSON object.
$root = rtrim($argv[1], '/');

function call($method, $url, $key, $body = null) {
    $headers = [];
    $ch = curl_init($url);
    curl_setopt($ch, CURLOPT_CUSTOMREQUEST, $method);
    curl_setopt($ch, CURLOPT_RETURNTRANSFER, true);
    $sent = ['Content-Type: application/json'];
    if ($key !== null) $sent[] = 'Authorization: Bearer ' . $key;
    curl_setopt($ch, CURLOPT_HTTPHEADER, $sent);
    if ($body !== null) curl_setopt($ch, CURLOPT_POSTFIELDS, json_encode($body));
    curl_setopt($ch, CURLOPT_HEADERFUNCTION, function ($ch, $line) use (&$headers) {
        $parts = explode(':', $line, 2);
        if (count($parts) == 2) $headers[trim($parts[0])] = trim($parts[1]);
        return strlen($line);
    });
    $text = curl_exec($ch);
    $status = curl_getinfo($ch, CURLINFO_HTTP_CODE);
    curl_close($ch);
    return [$status, $headers, json_decode($text, true)];
}

list(, , $account) = call('POST', "$root/account", null, ['name' => 'php']);
$key = $account['apiKey'];
list(, , $agent) = call('POST', "$root/agent", $key, [
    'name' => 'tipping',
    'inputs' => ['service' => ['poor' => [0, 5], 'good' => [0, 5, 10], 'excellent' => [5, 10]]],
    'outputs' => ['tip' => ['low' => [0, 5, 10], 'medium' => [10, 15, 20], 'high' => [20, 25, 30]]],
    'rules' => ['IF service IS poor THEN tip IS low', 'IF service IS good THEN tip IS medium',
                'IF service IS excellent THEN tip IS high'],
]);
$id = $agent['id'];
list(, $h1, $single) = call('POST', "$root/agent/$id", $key, ['service' => 5]);
list(, $h2, $batch) = call('POST', "$root/agent/$id", $key, [['service' => 5], ['service' => 10]]);
$singleID = $h1['X-Evaluation-ID'];
list(, , $feedback) = call('POST', "$root/evaluation/$singleID/feedback", $key, ['satisfaction' => 4]);
list(, , $log) = call('GET', "$root/evaluation/$singleID", $key);
list($deleted) = call('DELETE', "$root/agent/$id", $key);
list($after, , $afterBody) = call('POST', "$root/agent/$id", $key, ['service' => 5]);
echo json_encode([
    'single' => $single, 'single_id' => $singleID,
    'batch' => $batch, 'batch_ids' => explode(',', $h2['X-Evaluation-ID']),
    'feedback' => $feedback, 'log_input' => $log['input'], 'log_crisp' => $log['crisp'],
    'deleted' => $deleted, 'after_delete' => $after, 'after_delete_error' => $afterBody['error'],
]), "\n";
