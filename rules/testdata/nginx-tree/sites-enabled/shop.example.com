server {
	listen 80;
	server_name shop.example.com www.shop.example.com;

	# At most 10 requests in progress per client address, anywhere on the site.
	limit_conn addr 10;

	location / {
		root /var/www/shop;
		try_files $uri /index.html;
	}

	location /api/ {
		include snippets/api-limits.conf;
		include proxy_params;
		proxy_pass http://127.0.0.1:8080;
	}

	location = /login {
		limit_req zone=login burst=3;
		include proxy_params;
		proxy_pass http://127.0.0.1:8080;
	}

	location /downloads/ {
		# Big files: two at a time per address.
		limit_conn addr 2;
		limit_rate 500k;
		root /var/www/shop;
	}
}
